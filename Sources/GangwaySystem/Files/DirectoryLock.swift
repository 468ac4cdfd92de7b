import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A data directory held by one process at a time: an exclusive `flock` on its `lock`
/// file, which the operating system releases when the process ends, however it ends (a
/// crash or `kill -9` leaves no stale lock to clean up).
///
/// The holder writes its process ID and what it is (`gangway serve`) into the file, so the
/// next process to try names it. The lock is released when the value is released, or at
/// ``release()``; a process that failed to start takes back what taking it made with
/// ``releaseRemovingWhatItMade()``.
public final class DirectoryLock: Sendable {
    /// The lock file: `lock` in the directory.
    public let file: URL
    private let descriptor: Int32
    /// Whether this value created ``file``, rather than finding it there.
    private let createdFile: Bool
    /// The directories taking the lock made, outermost first.
    private let madeDirectories: [URL]

    /// The file name in a locked directory.
    public static let fileName = "lock"

    /// How often a lock whose file a leaving holder removed meanwhile is tried again.
    private static let attempts = 5

    /// Takes `directory`'s lock, making the directory (``PrivateFiles/makeDirectory(_:)``)
    /// and the file (mode 0600) when they are missing.
    ///
    /// - Parameter holder: What holds it, for the message another process shows:
    ///   `gangway serve`, `the gangway app`.
    /// - Throws: ``PrivateFileError/inUse`` naming the holder when another process (or
    ///   another lock in this one) holds it; ``PrivateFileError`` when the directory is
    ///   unsafe or the file cannot be made.
    public init(_ directory: URL, holder: String) throws(PrivateFileError) {
        let file = directory.appendingPathComponent(Self.fileName)
        var made: [URL] = []
        var taken: (descriptor: Int32, created: Bool)?
        for _ in 0..<Self.attempts where taken == nil {
            made += try PrivateFiles.makeDirectory(directory)
            taken = try Self.take(file, in: directory)
        }
        guard let taken else { throw .failed(file.path, "cannot be locked") }
        let text = Data("process \(getpid()) (\(Self.printable(holder)))\n".utf8)
        if ftruncate(taken.descriptor, 0) == 0 {
            _ = text.withUnsafeBytes { pwrite(taken.descriptor, $0.baseAddress, $0.count, 0) }
        }
        self.file = file
        descriptor = taken.descriptor
        createdFile = taken.created
        madeDirectories = made
    }

    /// Opens and locks `file`: its descriptor and whether this call created the file, or
    /// `nil` when the file went meanwhile (a holder that failed to start removed it), to
    /// be tried again.
    private static func take(
        _ file: URL,
        in directory: URL
    ) throws(PrivateFileError) -> (
        descriptor: Int32, created: Bool
    )? {
        var created = true
        var descriptor = open(file.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, PrivateFiles.fileMode)
        if descriptor < 0, errno == EEXIST {
            created = false
            descriptor = open(file.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .failed(file.path, "cannot be opened")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let failure = PrivateFileError.failed(file.path, "cannot be locked")
            let holderText = Self.holderText(descriptor)
            close(descriptor)
            guard busy else { throw failure }
            throw Self.busy(directory, holderText)
        }
        // The previous holder may have removed the file between its open and this lock:
        // a lock on a file no longer in the directory keeps nobody out.
        guard isLinked(descriptor, at: file.path) else {
            close(descriptor)
            return nil
        }
        return (descriptor, created)
    }

    /// Whether the file open at `descriptor` is the one at `path`.
    private static func isLinked(_ descriptor: Int32, at path: String) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(descriptor, &opened) == 0, opened.st_nlink > 0, lstat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    deinit {
        close(descriptor)
    }

    /// Whether another process holds `directory` now, checked without creating anything:
    /// the ``PrivateFileError/inUse`` error naming the holder, or `nil` when the directory,
    /// its lock file, or a holder is missing.
    public static func holder(of directory: URL) -> PrivateFileError? {
        let file = directory.appendingPathComponent(fileName)
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) != 0 else {
            flock(descriptor, LOCK_UN)
            return nil
        }
        guard errno == EWOULDBLOCK else { return nil }
        return busy(directory, holderText(descriptor))
    }

    private static func busy(_ directory: URL, _ holder: String?) -> PrivateFileError {
        PrivateFileError(
            .inUse,
            path: directory.path,
            reason:
                "is in use by \(holder ?? "another Gangway process"); stop it first, or choose another data directory"
        )
    }

    /// Ends the hold now (closing the file releases the lock); the value is spent.
    public func release() {
        _ = flock(descriptor, LOCK_UN)
    }

    /// Ends the hold and takes back what taking it made, for a process that failed to
    /// start and leaves: the lock file when this value created it, then each directory
    /// made for it that is empty now. A file or directory that was there before stays,
    /// and so does one that holds anything; the value is spent.
    public func releaseRemovingWhatItMade() {
        // Removed while still held: a process that opened it meanwhile finds it gone once
        // it locks it, and starts over (``take(_:in:)``).
        if createdFile, Self.isLinked(descriptor, at: file.path) { _ = unlink(file.path) }
        for directory in madeDirectories.reversed() {
            // One that holds something is in use, and so is each one above it.
            guard rmdir(directory.path) == 0 || errno == ENOENT else { break }
        }
        release()
    }

    /// What the holder wrote: its first line, control characters dropped, at most 200
    /// characters.
    private static func holderText(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 200)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let line = String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").first.map(String.init)
        return line.map(printable).flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !$0.properties.generalCategory.isControl }))
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControl: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}

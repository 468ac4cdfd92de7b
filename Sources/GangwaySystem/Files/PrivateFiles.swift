import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files and directories only their owner can read: mode 0600 and 0700 from the moment
/// they exist, whatever the process's umask.
///
/// A file is never created wider and narrowed afterwards, which would leave a moment in
/// which another local user can open it: ``write(_:to:)`` creates a new file with
/// `O_CREAT | O_EXCL` and mode 0600, writes and syncs it, then renames it over the old
/// one, so a reader sees the whole old content or the whole new one.
public enum PrivateFiles {
    /// Owner read and write.
    public static let fileMode: mode_t = 0o600
    /// Owner read, write and search.
    public static let directoryMode: mode_t = 0o700

    /// Creates `directory` and any missing parent with mode 0700, and never changes a
    /// directory that existed before: not its mode, not its owner.
    ///
    /// A directory Gangway would keep its files in must be safe: `directory` itself, when
    /// it exists, must belong to the running user and be writable by no one else (group or
    /// others), and no directory above it may let another account swap it for its own
    /// (writable by others without the sticky bit, or owned by another account than the
    /// user or root). An unsafe one is refused, never narrowed: it may be someone else's.
    ///
    /// - Returns: The directories this call made, outermost first (none when `directory`
    ///   was there): what a caller that gives up may remove again, and nothing else.
    /// - Throws: ``PrivateFileError`` when a directory cannot be made, the path is a
    ///   file, or the directory is unsafe (``PrivateFileError/unsafe``).
    @discardableResult
    public static func makeDirectory(_ directory: URL) throws(PrivateFileError) -> [URL] {
        let path = directory.standardizedFileURL.path
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw PrivateFileError(.notADirectory, path: path, reason: "it is not a directory")
            }
            try checkLink(path)
            try checkOwnDirectory(path, status)
            try checkAncestors(of: path)
            return []
        }
        var made: [URL] = []
        let parent = directory.standardizedFileURL.deletingLastPathComponent()
        if parent.path != path {
            var parentStatus = stat()
            if stat(parent.path, &parentStatus) == 0 {
                guard parentStatus.st_mode & S_IFMT == S_IFDIR else {
                    throw PrivateFileError(.notADirectory, path: parent.path, reason: "it is not a directory")
                }
                try checkAncestors(of: path)
            } else {
                made = try makeDirectory(parent)
            }
        }
        // Another process may make it at the same moment: then it is not this call's.
        if mkdir(path, directoryMode) == 0 {
            made.append(URL(fileURLWithPath: path, isDirectory: true))
        } else if errno != EEXIST {
            throw .failed(path, "cannot be created")
        }
        // mkdir applies the umask, which may take bits away but never adds any; only a
        // directory this call made is set.
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw PrivateFileError(.notADirectory, path: path, reason: "it is not a directory")
        }
        if status.st_mode & 0o7777 != directoryMode { _ = chmod(path, directoryMode) }
        try checkOwnDirectory(path, status)
        return made
    }

    /// Checks that `directory` exists and is safe as ``makeDirectory(_:)`` requires,
    /// without creating or changing anything.
    ///
    /// - Throws: ``PrivateFileError`` when it is missing, not a directory, or unsafe.
    public static func checkDirectory(_ directory: URL) throws(PrivateFileError) {
        let path = directory.standardizedFileURL.path
        var status = stat()
        guard stat(path, &status) == 0 else { throw .failed(path, "cannot be read") }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw PrivateFileError(.notADirectory, path: path, reason: "it is not a directory")
        }
        try checkLink(path)
        try checkOwnDirectory(path, status)
        try checkAncestors(of: path)
    }

    /// Checks, without creating or changing anything, that ``makeDirectory(_:)`` would
    /// take `directory`: a safe directory when it exists; else the nearest path above it
    /// that exists is a directory, and none above could be swapped by another account.
    ///
    /// - Throws: ``PrivateFileError`` as ``makeDirectory(_:)`` would.
    public static func checkMakeable(_ directory: URL) throws(PrivateFileError) {
        let path = directory.standardizedFileURL.path
        var status = stat()
        if stat(path, &status) == 0 { return try checkDirectory(directory) }
        var existing = directory.standardizedFileURL.deletingLastPathComponent()
        while stat(existing.path, &status) != 0, existing.path != "/" {
            existing = existing.deletingLastPathComponent()
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw PrivateFileError(.notADirectory, path: existing.path, reason: "it is not a directory")
        }
        try checkAncestors(of: path)
    }

    /// The contents of `file`, or `nil` when there is none; refused when an account other
    /// than this one or root owns it (root may change anything already: a file of root's
    /// that it alone may write, as an `/etc` configuration is installed, is safe), or
    /// when another account could have written it (group or others may write), or could
    /// have replaced it (a directory above it that another account owns, or anyone may
    /// rename entries of: writable by others without the sticky bit), and, for a
    /// `secret`, when anyone but its owner may read it.
    ///
    /// - Throws: ``PrivateFileError`` when it cannot be read or is unsafe.
    public static func read(_ file: URL, secret: Bool = false) throws(PrivateFileError) -> Data? {
        let path = file.path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .failed(path, "cannot be opened")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .failed(path, "cannot be read") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw PrivateFileError(.unsafe, path: path, reason: "it is not a regular file")
        }
        guard status.st_uid == geteuid() || status.st_uid == 0 else {
            throw PrivateFileError(
                .unsafe,
                path: path,
                reason: "it belongs to another user (uid \(status.st_uid)), so Gangway does not trust it"
            )
        }
        let mode = status.st_mode & 0o7777
        if mode & 0o022 != 0 {
            throw PrivateFileError(
                .unsafe,
                path: path,
                reason: "others can write to it (mode \(octal(mode))); make it 0600 with chmod if it is yours"
            )
        }
        try checkAncestors(of: URL(fileURLWithPath: path).standardizedFileURL.path)
        if secret, mode & 0o077 != 0 {
            throw PrivateFileError(
                .unsafe,
                path: path,
                reason: "others can read it (mode \(octal(mode))); make it 0600 with chmod"
            )
        }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .failed(path, "cannot be read")
            }
            if count == 0 { break }
            contents.append(contentsOf: buffer[0..<count])
        }
        return contents
    }

    /// A directory Gangway keeps files in belongs to the user and only they can write it.
    private static func checkOwnDirectory(_ path: String, _ status: stat) throws(PrivateFileError) {
        guard status.st_uid == geteuid() else {
            throw PrivateFileError(
                .unsafe,
                path: path,
                reason: "it belongs to another user (uid \(status.st_uid)); use a directory of your own"
            )
        }
        let mode = status.st_mode & 0o7777
        guard mode & 0o022 == 0 else {
            throw PrivateFileError(
                .unsafe,
                path: path,
                reason: "others can write to it (mode \(octal(mode))); use a directory only you can write"
            )
        }
    }

    /// A symbolic link on the way is the user's own or root's: one another account made
    /// (planted in a directory anyone may add to, such as a sticky `/tmp`) could point
    /// anywhere, and what Gangway writes would land there.
    private static func checkLink(_ path: String) throws(PrivateFileError) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
            status.st_uid != geteuid(), status.st_uid != 0
        else { return }
        throw PrivateFileError(
            .unsafe,
            path: path,
            reason: "it is a symbolic link another user (uid \(status.st_uid)) made, which could point anywhere; "
                + "use a directory of your own"
        )
    }

    /// No directory above `path` lets another account replace what is below it, or
    /// point it elsewhere with a link of theirs.
    private static func checkAncestors(of path: String) throws(PrivateFileError) {
        var current = URL(fileURLWithPath: path).deletingLastPathComponent().path
        while true {
            try checkLink(current)
            var status = stat()
            if stat(current, &status) == 0 {
                let mode = status.st_mode & 0o7777
                if status.st_uid != geteuid(), status.st_uid != 0 {
                    throw PrivateFileError(
                        .unsafe,
                        path: path,
                        reason: "the directory \(current) above it belongs to another user (uid \(status.st_uid)), "
                            + "who could replace it; use a directory under your own"
                    )
                }
                if mode & 0o002 != 0, mode & 0o1000 == 0 {
                    throw PrivateFileError(
                        .unsafe,
                        path: path,
                        reason: "anyone can rename entries of the directory \(current) above it "
                            + "(mode \(octal(mode)), no sticky bit); use a directory under your own"
                    )
                }
            }
            let parent = URL(fileURLWithPath: current).deletingLastPathComponent().path
            if parent == current || current == "/" { return }
            current = parent
        }
    }

    private static func octal(_ mode: mode_t) -> String {
        let text = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    /// Replaces `file` with `contents`, atomically and with mode 0600 throughout.
    ///
    /// - Throws: ``PrivateFileError`` when the file cannot be written; nothing is left
    ///   behind then, and the old file is unchanged.
    public static func write(_ contents: Data, to file: URL) throws(PrivateFileError) {
        let directory = file.deletingLastPathComponent()
        try makeDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard descriptor >= 0 else { throw .failed(file.path, "cannot be created") }
        var failure: String?
        contents.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = PrivateFileError.failed(file.path, "cannot be written").reason
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = PrivateFileError.failed(file.path, "cannot be synced").reason
        }
        close(descriptor)
        if failure == nil, rename(temporary, file.path) != 0 {
            failure = PrivateFileError.failed(file.path, "cannot be put in place").reason
        }
        if let failure {
            unlink(temporary)
            throw PrivateFileError(.failed, path: file.path, reason: failure)
        }
        syncDirectory(directory)
    }

    /// Creates `file` empty, with mode 0600, in a directory ``makeDirectory(_:)`` accepts;
    /// anything already at that path (a file, a link) is left alone and refused.
    ///
    /// - Throws: ``PrivateFileError`` when something is there or it cannot be made.
    public static func createEmpty(_ file: URL) throws(PrivateFileError) {
        try makeDirectory(file.deletingLastPathComponent())
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard descriptor >= 0 else {
            throw errno == EEXIST
                ? PrivateFileError(.failed, path: file.path, reason: "something is there already")
                : .failed(file.path, "cannot be created")
        }
        close(descriptor)
    }

    /// Gives `file` the name `destination` in the same directory's file system, unless
    /// something is at `destination` already, which is never replaced; syncs the file and
    /// its directory first, so the name never points at a half-written file.
    ///
    /// - Throws: ``PrivateFileError`` when `destination` exists or the move fails; `file`
    ///   is where it was then.
    public static func moveWithoutReplacing(_ file: URL, to destination: URL) throws(PrivateFileError) {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        // A hard link fails when the name is taken; then the old name goes.
        guard link(file.path, destination.path) == 0 else {
            throw errno == EEXIST
                ? PrivateFileError(.failed, path: destination.path, reason: "something is there already")
                : .failed(destination.path, "cannot be put in place")
        }
        unlink(file.path)
        syncDirectory(destination.deletingLastPathComponent())
    }

    /// Creates `file` empty with mode 0600 unless it exists; narrows an existing one the
    /// process owns to 0600. For files another library opens by path (a SQLite
    /// database), so that they are born private.
    public static func prepare(_ file: URL) throws(PrivateFileError) {
        let path = file.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard descriptor >= 0 else { throw .failed(path, "cannot be created") }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_uid == geteuid(), status.st_mode & 0o077 != 0 {
            guard fchmod(descriptor, fileMode) == 0 else { throw .failed(path, "cannot be narrowed to 0600") }
        }
    }

    /// Prepares a SQLite database file as ``prepare(_:)`` does, and narrows its `-wal` and
    /// `-shm` files left by an earlier run (SQLite gives new ones the database's mode).
    public static func prepareDatabase(_ file: URL) throws(PrivateFileError) {
        try prepare(file)
        for suffix in ["-wal", "-shm"] { try narrow(URL(fileURLWithPath: file.path + suffix)) }
    }

    /// Narrows `file` to 0600 if it exists and the process owns it.
    public static func narrow(_ file: URL) throws(PrivateFileError) {
        var status = stat()
        guard lstat(file.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        if status.st_uid == geteuid(), status.st_mode & 0o077 != 0, chmod(file.path, fileMode) != 0 {
            throw .failed(file.path, "cannot be narrowed to 0600")
        }
    }

    /// The permission bits of `path` (`0o600`, `0o755`, …), or `nil` when it does not exist.
    public static func mode(of path: String) -> mode_t? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o7777
    }

    private static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
    #else
        Darwin.read(descriptor, buffer, count)
    #endif
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #elseif canImport(Musl)
        Musl.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}

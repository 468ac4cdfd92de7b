import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a file, waited for: what processes (and threads) take in turn
/// around a step that must never run beside another, such as counting a passcode attempt
/// and clearing the count once the passcode proved right. The operating system releases it
/// when its holder ends, however it ends, so no stale lock is left to clean up.
///
/// Unlike ``DirectoryLock``, which refuses at once and names the holder, this one waits
/// its turn. The lock is released when the value is released, or at ``release()``.
public final class FileLock: Sendable {
    private let descriptor: Int32

    /// Takes `file`'s lock, making the file (mode 0600, never through a symbolic link)
    /// when it is missing, and waiting up to `timeout` while another holds it.
    ///
    /// - Throws: ``PrivateFileError/failed`` when the file cannot be made or locked, or
    ///   the wait ran out.
    public init(_ file: URL, timeout: Duration = .seconds(60)) throws(PrivateFileError) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, PrivateFiles.fileMode)
            guard descriptor >= 0 else { throw .failed(file.path, "cannot be opened") }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    let failure = PrivateFileError.failed(file.path, "cannot be locked")
                    close(descriptor)
                    throw failure
                }
                guard clock.now < deadline else {
                    close(descriptor)
                    throw PrivateFileError(.failed, path: file.path, reason: "stayed locked by another process")
                }
                usleep(10_000)
            }
            // The holder before may have removed the file (an erase): a lock on a file no
            // longer at the path excludes no one, so the path is opened again.
            var held = stat()
            var named = stat()
            if fstat(descriptor, &held) == 0, stat(file.path, &named) == 0, held.st_ino == named.st_ino,
                held.st_dev == named.st_dev
            {
                self.descriptor = descriptor
                return
            }
            close(descriptor)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Ends the hold now; the value is spent.
    public func release() {
        _ = flock(descriptor, LOCK_UN)
    }
}

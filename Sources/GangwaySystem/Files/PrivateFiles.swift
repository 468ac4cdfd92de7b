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

    /// Creates `directory` and any missing parent with mode 0700. An existing directory
    /// the process owns is narrowed to 0700 when group or others could reach into it;
    /// one it does not own is left as it is.
    ///
    /// - Throws: ``PrivateFileError`` when a directory cannot be made, or the path is a file.
    public static func makeDirectory(_ directory: URL) throws(PrivateFileError) {
        let path = directory.standardizedFileURL.path
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw PrivateFileError(.notADirectory, path: path, reason: "it is not a directory")
            }
            if status.st_uid == geteuid(), status.st_mode & 0o077 != 0, status.st_mode & S_ISVTX == 0 {
                guard chmod(path, directoryMode) == 0 else { throw .failed(path, "cannot be narrowed to 0700") }
            }
            return
        }
        let parent = directory.standardizedFileURL.deletingLastPathComponent()
        if parent.path != path { try makeDirectory(parent) }
        guard mkdir(path, directoryMode) == 0 || errno == EEXIST else { throw .failed(path, "cannot be created") }
        // mkdir applies the umask, which may take bits away but never adds any.
        _ = chmod(path, directoryMode)
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

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #elseif canImport(Musl)
        Musl.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}

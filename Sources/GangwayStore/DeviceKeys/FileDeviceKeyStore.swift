import Foundation
import GangwaySystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A device key store that keeps each secret in its own file, readable only by the
/// owner (directory `0700`, files `0600`), replaced atomically (write a temporary
/// file, sync it, rename it over the old one, sync the directory).
///
/// On Linux there is no keychain; this is its stand-in. Keep the directory apart from
/// the stores' data directories: whoever has both has everything a passcode does not
/// protect (see the security model in the documentation).
public struct FileDeviceKeyStore: DeviceKeyStore {
    /// The directory holding the key files.
    public let directory: URL

    /// Creates the store; the directory is created on first write.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The secret, read only from a directory and a file that are the user's own and no
    /// one else's to write (nor, for the file, to read): a key another account could have
    /// replaced is refused, never used.
    public func read(_ name: String) throws -> Data? {
        try DeviceKeyStoreError.validate(name)
        do {
            if FileManager.default.fileExists(atPath: directory.path) { try PrivateFiles.checkDirectory(directory) }
            guard let data = try PrivateFiles.read(file(name), secret: true) else { return nil }
            guard data.count <= 1 << 20 else { throw DeviceKeyStoreError(name: name, reason: "is too large") }
            return data
        } catch let error as PrivateFileError {
            throw DeviceKeyStoreError(name: name, reason: "cannot be used: \(error.reason)")
        }
    }

    public func write(_ secret: Data, for name: String) throws {
        try DeviceKeyStoreError.validate(name)
        do {
            try PrivateFiles.write(secret, to: file(name))
        } catch {
            throw DeviceKeyStoreError(
                name: name,
                reason: error == .notADirectory ? "the key directory is a file" : "cannot be written (\(error.reason))"
            )
        }
    }

    public func delete(_ name: String) throws {
        try DeviceKeyStoreError.validate(name)
        if unlink(file(name).path) != 0, errno != ENOENT {
            throw DeviceKeyStoreError(name: name, reason: "cannot be deleted (\(String(cString: strerror(errno))))")
        }
        syncDirectory()
    }

    private func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    private func syncDirectory() {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

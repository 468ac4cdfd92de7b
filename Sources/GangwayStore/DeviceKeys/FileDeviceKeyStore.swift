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

    public func read(_ name: String) throws -> Data? {
        try DeviceKeyStoreError.validate(name)
        let path = file(name).path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw DeviceKeyStoreError(name: name, reason: "cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw DeviceKeyStoreError(name: name, reason: "cannot be read (\(String(cString: strerror(errno))))")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count > 1 << 20 { throw DeviceKeyStoreError(name: name, reason: "is too large") }
        }
        return data
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

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random bytes from the system's cryptographically secure generator.
///
/// Key material is never drawn from an injectable generator: a test double there would be
/// one wrong line away from shipping predictable keys.
enum SecureRandom {
    /// `count` random bytes from the kernel's generator, read in one go: `/dev/urandom`
    /// on Linux (the generator's own device, which never blocks once the system has
    /// booted), `arc4random_buf` on Apple platforms. Swift's `SystemRandomNumberGenerator`
    /// makes one system call per eight bytes, which dominates sealing many values; it
    /// remains the fallback when the device cannot be read.
    static func data(count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { buffer in
            guard buffer.count > 0 else { return }
            #if canImport(Darwin)
                arc4random_buf(buffer.baseAddress!, buffer.count)
            #else
                if !readDevice(into: buffer) {
                    var generator = SystemRandomNumberGenerator()
                    for index in buffer.indices { buffer[index] = generator.next() }
                }
            #endif
        }
        return data
    }

    #if !canImport(Darwin)
        private static func readDevice(into buffer: UnsafeMutableRawBufferPointer) -> Bool {
            let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            defer { close(descriptor) }
            var filled = 0
            while filled < buffer.count {
                let count = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
                if count > 0 {
                    filled += count
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    #endif
}

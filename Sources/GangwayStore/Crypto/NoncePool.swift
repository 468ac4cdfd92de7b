import Crypto
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// AES-GCM nonces drawn from the system's CSPRNG a page at a time.
///
/// Asking the kernel for 12 bytes per sealed value costs a system call each, more than
/// the encryption itself; reading 4 KiB at once and handing out slices keeps every nonce
/// fully random while paying for the call once per 341 values. The pool refills after a
/// `fork`, so a child process never reuses its parent's nonces.
final class NoncePool: Sendable {
    static let shared = NoncePool()

    private struct State {
        var buffer = Data()
        var offset = 0
        var owner: pid_t = 0
    }

    private let state = Mutex(State())
    private static let nonceSize = 12
    private static let refillSize = 4_092

    func next() -> AES.GCM.Nonce {
        let bytes = state.withLock { state -> Data in
            let pid = getpid()
            if state.owner != pid || state.offset + Self.nonceSize > state.buffer.count {
                state.buffer = SecureRandom.data(count: Self.refillSize)
                state.offset = 0
                state.owner = pid
            }
            defer {
                // Used bytes are wiped so a later memory dump does not show past nonces in order.
                state.buffer.resetBytes(in: state.offset..<(state.offset + Self.nonceSize))
                state.offset += Self.nonceSize
            }
            return state.buffer.subdata(in: state.offset..<(state.offset + Self.nonceSize))
        }
        // A 12-byte buffer is always a valid GCM nonce.
        return try! AES.GCM.Nonce(data: bytes)
    }
}

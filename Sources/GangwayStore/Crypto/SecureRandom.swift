import Crypto
import Foundation

/// Random bytes from the system's cryptographically secure generator.
///
/// Key material is never drawn from an injectable generator: a test double there would be
/// one wrong line away from shipping predictable keys.
enum SecureRandom {
    static func data(count: Int) -> Data {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Data($0) }
    }
}

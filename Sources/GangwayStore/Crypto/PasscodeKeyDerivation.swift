import Crypto
import CryptoExtras
import Foundation
import GangwayPolicy

/// How a passcode becomes a key-encryption key, recorded with each passcode slot so the
/// cost can be raised later and old slots still open.
public struct PasscodeKeyDerivation: Sendable, Hashable, Codable {
    /// The algorithm's name as recorded in the slot.
    public var algorithm: String
    /// The number of PBKDF2 rounds.
    public var rounds: Int
    /// The random salt, 16 bytes.
    public var salt: Data

    /// The only algorithm this version writes.
    public static let pbkdf2SHA256 = "pbkdf2-hmac-sha256"
    /// The rounds used for new passcodes: OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256.
    public static let defaultRounds = 600_000
    /// The fewest rounds accepted at all; only tests and benchmarks go this low.
    public static let minimumRounds = 1_000

    /// Fresh parameters with a random salt.
    static func fresh(rounds: Int) -> PasscodeKeyDerivation {
        PasscodeKeyDerivation(algorithm: pbkdf2SHA256, rounds: rounds, salt: SecureRandom.data(count: 16))
    }

    /// Derives the 256-bit key-encryption key.
    func deriveKey(from passcode: Secret) throws(SecureStoreError) -> SymmetricKey {
        guard algorithm == Self.pbkdf2SHA256 else {
            throw .unsupportedFormat(detail: "unknown key-derivation algorithm")
        }
        guard rounds >= Self.minimumRounds, rounds <= 100_000_000, salt.count >= 16 else {
            throw .integrityFailure("key derivation parameters out of range")
        }
        do {
            return try KDF.Insecure.PBKDF2.deriveKey(
                from: Passcode.bytes(passcode),
                salt: salt,
                using: .sha256,
                outputByteCount: 32,
                unsafeUncheckedRounds: rounds
            )
        } catch {
            throw .ioFailure("key derivation failed")
        }
    }
}

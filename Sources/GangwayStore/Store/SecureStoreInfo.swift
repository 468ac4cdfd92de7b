import Foundation
import GangwayPolicy
import Logging

/// What a store says about itself without being unlocked.
public struct SecureStoreInfo: Sendable, Hashable {
    /// Whether the records read before unlock passed their authentication.
    public enum Integrity: Sendable, Hashable {
        /// Header, key slots and failed-attempt count verified under the device key.
        case verified
        /// They could not be checked (for example the device key is missing).
        case unverified(String)
        /// They failed the check.
        case failed(String)
    }

    /// The store's ID.
    public let storeID: UUID
    /// The on-disk format version.
    public let formatVersion: Int
    /// Whether a passcode protects the store (otherwise it is in no-passcode mode).
    public let isPasscodeProtected: Bool
    /// The passcode slot's key-derivation algorithm, if there is one.
    public let keyDerivationAlgorithm: String?
    /// The passcode slot's PBKDF2 rounds, if there is one.
    public let keyDerivationRounds: Int?
    /// Whether biometric unlock is on.
    public let isBiometricUnlockEnabled: Bool
    /// How many entries the store holds.
    public let entryCount: Int
    /// Consecutive wrong passcodes so far.
    public let failedAttempts: Int
    /// Wrong passcodes left before the store is erased (`nil` without a passcode).
    public let triesLeft: Int?
    /// The policy recorded in the store.
    public let policy: PasscodePolicy?
    /// When the store was created.
    public let createdAt: Date
    /// When the passcode was last set.
    public let passcodeSetAt: Date?
    /// The result of checking the records.
    public let integrity: Integrity
}

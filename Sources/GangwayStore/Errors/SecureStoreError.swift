import Foundation
import GangwayPolicy

/// An error from the secure store.
///
/// Errors are equal when their kind is equal, so a caller can match them without caring
/// about the details they carry:
///
/// ```swift
/// do { try location.unlock(passcode: entered) }
/// catch let error as SecureStoreError where error == .wrongPasscode { show(error.triesLeft) }
/// ```
///
/// New kinds can be added without breaking callers. No error ever carries a passcode, a
/// key or a stored value: the description names the problem, never the secret.
public struct SecureStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Sendable, Hashable {
        case wrongPasscode
        case erased
        case tryAgainLater
        case integrityFailure
        case tampered
        case notAStore
        case storeNotFound
        case storeExists
        case deviceKeyMissing
        case passcodeRejected
        case unsupportedFormat
        case passcodeRequired
        case passcodeNotSet
        case biometricsUnavailable
        case biometricsNotEnabled
        case biometricsInvalidated
        case biometricsFailed
        case notAllowedByPolicy
        case recoveryNotSet
        case recoveryKeyRejected
        case closed
        case invalidArgument
        case ioFailure
        case passcodeChangedElsewhere
    }

    private let code: Code
    /// For ``wrongPasscode``: how many more wrong passcodes erase the store.
    public let triesLeft: Int?
    /// For ``tryAgainLater``: how long to wait before the next attempt is allowed.
    public let retryAfter: Duration?
    /// For ``passcodeRejected``: the rules the passcode did not meet.
    public let failedRules: [PasscodeRule]
    /// Context for a person reading the message. Never a secret.
    public let detail: String?

    private init(
        _ code: Code,
        triesLeft: Int? = nil,
        retryAfter: Duration? = nil,
        failedRules: [PasscodeRule] = [],
        detail: String? = nil
    ) {
        self.code = code
        self.triesLeft = triesLeft
        self.retryAfter = retryAfter
        self.failedRules = failedRules
        self.detail = detail
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The passcode did not unlock the store.
    public static let wrongPasscode = Self(.wrongPasscode)
    /// Too many wrong passcodes: the store's keys and files have been destroyed.
    public static let erased = Self(.erased)
    /// The store is in a lockout delay after failed attempts.
    public static let tryAgainLater = Self(.tryAgainLater)
    /// Stored data failed its authentication check: it was corrupted or altered.
    public static let integrityFailure = Self(.integrityFailure)
    /// The failed-attempt record is missing or was altered; the store refuses to unlock.
    public static let tampered = Self(.tampered)
    /// The directory exists but does not hold a Gangway store.
    public static let notAStore = Self(.notAStore)
    /// No store exists at the location.
    public static let storeNotFound = Self(.storeNotFound)
    /// A store already exists at the location.
    public static let storeExists = Self(.storeExists)
    /// The device key that protects this store's records is missing from the device key store.
    public static let deviceKeyMissing = Self(.deviceKeyMissing)
    /// The passcode does not meet the passcode policy.
    public static let passcodeRejected = Self(.passcodeRejected)
    /// The store was written by a newer version of Gangway.
    public static let unsupportedFormat = Self(.unsupportedFormat)
    /// The store is protected by a passcode; it cannot be opened without one.
    public static let passcodeRequired = Self(.passcodeRequired)
    /// The store has no passcode (no-passcode mode); there is nothing to verify or change.
    public static let passcodeNotSet = Self(.passcodeNotSet)
    /// No biometric is available on this device.
    public static let biometricsUnavailable = Self(.biometricsUnavailable)
    /// Biometric unlock is not enabled for this store.
    public static let biometricsNotEnabled = Self(.biometricsNotEnabled)
    /// The biometric enrollment changed, so the biometric key was destroyed. Use the passcode.
    public static let biometricsInvalidated = Self(.biometricsInvalidated)
    /// Biometric authentication failed or was cancelled.
    public static let biometricsFailed = Self(.biometricsFailed)
    /// The passcode policy does not allow the operation.
    public static let notAllowedByPolicy = Self(.notAllowedByPolicy)
    /// The store has no recovery key slot.
    public static let recoveryNotSet = Self(.recoveryNotSet)
    /// The recovery key does not open the store.
    public static let recoveryKeyRejected = Self(.recoveryKeyRejected)
    /// The store handle was closed.
    public static let closed = Self(.closed)
    /// An argument was invalid (for example an empty key name).
    public static let invalidArgument = Self(.invalidArgument)
    /// Reading or writing the store's files failed.
    public static let ioFailure = Self(.ioFailure)
    /// Another process changed the passcode while this change was asked for: this one
    /// changed nothing (the other's passcode opens the store).
    public static let passcodeChangedElsewhere = Self(.passcodeChangedElsewhere)

    static func wrongPasscode(triesLeft: Int) -> Self { Self(.wrongPasscode, triesLeft: triesLeft) }
    static func tryAgainLater(after delay: Duration) -> Self { Self(.tryAgainLater, retryAfter: delay) }
    /// A passcode that misses these rules of the policy.
    public static func passcodeRejected(_ rules: [PasscodeRule]) -> Self {
        Self(.passcodeRejected, failedRules: rules)
    }
    static func integrityFailure(_ detail: String) -> Self { Self(.integrityFailure, detail: detail) }
    static func tampered(_ detail: String) -> Self { Self(.tampered, detail: detail) }
    static func notAStore(_ detail: String) -> Self { Self(.notAStore, detail: detail) }
    static func unsupportedFormat(_ version: Int) -> Self {
        Self(.unsupportedFormat, detail: "format version \(version)")
    }
    static func unsupportedFormat(detail: String) -> Self { Self(.unsupportedFormat, detail: detail) }
    static func notAllowedByPolicy(_ detail: String) -> Self { Self(.notAllowedByPolicy, detail: detail) }
    static func invalidArgument(_ detail: String) -> Self { Self(.invalidArgument, detail: detail) }
    static func ioFailure(_ detail: String) -> Self { Self(.ioFailure, detail: detail) }
    static func erased(_ detail: String) -> Self { Self(.erased, detail: detail) }
    static func biometricsFailed(_ detail: String) -> Self { Self(.biometricsFailed, detail: detail) }

    /// Whether the error means stored data can no longer be trusted.
    public var isIntegrityProblem: Bool {
        code == .integrityFailure || code == .tampered
    }

    public var description: String {
        var text: String
        switch code {
        case .wrongPasscode:
            text = "wrong passcode"
            if let triesLeft { text += " (\(triesLeft) \(triesLeft == 1 ? "try" : "tries") left)" }
        case .erased:
            // An erase another way (its keys found destroyed) says so in its detail.
            text = detail == nil ? "too many wrong passcodes: the store was erased" : "the store was erased"
        case .tryAgainLater:
            text = "too many wrong passcodes: try again later"
            if let retryAfter { text += " (in \(retryAfter.roundedUpSeconds) s)" }
        case .integrityFailure: text = "stored data failed its integrity check"
        case .tampered: text = "the failed-attempt record was altered or removed; the store is locked"
        case .notAStore: text = "not a Gangway store"
        case .storeNotFound: text = "no store found"
        case .storeExists: text = "a store already exists there"
        case .deviceKeyMissing: text = "the device key for this store is missing"
        case .passcodeRejected:
            text = "passcode rejected by the policy"
            if !failedRules.isEmpty {
                text += ": " + failedRules.map(\.summary).joined(separator: "; ")
            }
        case .unsupportedFormat: text = "the store was written by a newer version of Gangway"
        case .passcodeRequired: text = "the store is protected by a passcode"
        case .passcodeNotSet: text = "the store has no passcode"
        case .biometricsUnavailable: text = "no biometric is available"
        case .biometricsNotEnabled: text = "biometric unlock is not enabled for this store"
        case .biometricsInvalidated:
            text = "the biometric enrollment changed; biometric unlock was turned off, use the passcode"
        case .biometricsFailed: text = "biometric authentication failed"
        case .notAllowedByPolicy: text = "not allowed by the passcode policy"
        case .recoveryNotSet: text = "the store has no recovery key"
        case .recoveryKeyRejected: text = "the recovery key does not open the store"
        case .closed: text = "the store is closed"
        case .invalidArgument: text = "invalid argument"
        case .ioFailure: text = "file access failed"
        case .passcodeChangedElsewhere:
            text =
                "the passcode was changed elsewhere meanwhile; this change was not made, and the new passcode opens the store"
        }
        if let detail { text += " (\(detail))" }
        return text
    }
}

extension Duration {
    /// Whole seconds, rounded up, for messages and `Retry-After`-style hints.
    var roundedUpSeconds: Int64 {
        let (seconds, attoseconds) = components
        return attoseconds > 0 ? seconds + 1 : seconds
    }
}

import Foundation
import GangwaySystem
import Logging

/// What a store needs from its surroundings: the device key store, the biometrics, a
/// wall clock, the key-derivation cost, a logger. Tests pass doubles; apps pass the
/// platform's implementations.
public struct SecureStoreEnvironment: Sendable {
    /// Where device keys and biometric keys are kept.
    public var deviceKeys: any DeviceKeyStore
    /// The device's biometric authentication.
    public var biometrics: any Biometrics
    /// The current wall-clock time, for lockout delays (which must survive a restart) and
    /// passcode expiry.
    public var now: @Sendable () -> Date
    /// PBKDF2 rounds for new passcode slots. A slot with fewer rounds is re-wrapped with
    /// this many at its next successful unlock; a slot is never weakened.
    public var passcodeRounds: Int
    /// Where the store reports what it does. It never logs a passcode, key or value.
    public var logger: Logger
    /// Test hook called at the named points of multi-step operations.
    @_spi(Testing) public var faultInjector: (@Sendable (FaultPoint) throws -> Void)?

    /// Creates an environment.
    public init(
        deviceKeys: any DeviceKeyStore,
        biometrics: any Biometrics = NoBiometrics(),
        passcodeRounds: Int = PasscodeKeyDerivation.defaultRounds,
        now: @escaping @Sendable () -> Date = WallClock.now,
        logger: Logger = Logger(label: "gangway.store")
    ) {
        self.deviceKeys = deviceKeys
        self.biometrics = biometrics
        self.passcodeRounds = max(passcodeRounds, PasscodeKeyDerivation.minimumRounds)
        self.now = now
        self.logger = logger
        self.faultInjector = nil
    }

    func fault(_ point: FaultPoint) throws {
        try faultInjector?(point)
    }
}

/// A named point inside a multi-step store operation, where tests inject failures to prove
/// that a crash there leaves the store usable.
@_spi(Testing) public struct FaultPoint: RawRepresentable, Sendable, Hashable, CaseIterable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The failed attempt was counted and synced; the key derivation has not run.
    public static let attemptCounted = Self(rawValue: "attempt-counted")
    /// A passcode change wrote the new slot, inside its transaction.
    public static let passcodeSlotWritten = Self(rawValue: "passcode-slot-written")
    /// A passcode change wrote the new header, inside its transaction.
    public static let passcodeHeaderWritten = Self(rawValue: "passcode-header-written")
    /// A passcode change wrote the history, inside its transaction.
    public static let passcodeHistoryWritten = Self(rawValue: "passcode-history-written")
    /// A passcode change committed.
    public static let passcodeCommitted = Self(rawValue: "passcode-committed")
    /// An erase destroyed the key slots, before the device keys and files.
    public static let eraseSlotsDestroyed = Self(rawValue: "erase-slots-destroyed")
    /// An erase destroyed the device keys, before the files.
    public static let eraseDeviceKeysDestroyed = Self(rawValue: "erase-device-keys-destroyed")

    public static let allCases: [FaultPoint] = [
        .attemptCounted, .passcodeSlotWritten, .passcodeHeaderWritten, .passcodeHistoryWritten,
        .passcodeCommitted, .eraseSlotsDestroyed, .eraseDeviceKeysDestroyed,
    ]
}

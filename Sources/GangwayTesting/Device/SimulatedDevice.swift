import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayStore
import Logging

/// What a device keeps across launches of the app, for whole-story tests: its disk, its
/// device key store, biometrics, clocks and logs. A story's device builds each launch (a
/// new session manager over this disk) its own way; the disk, the stores and the users'
/// registry are this one's.
public final class SimulatedDevice: Sendable {
    /// The passcodes the stories' users choose.
    public static let alicePasscode: Secret = "Fuel-Check-2468"
    public static let bobPasscode: Secret = "Tyre-Gauge-1357"
    public static let newPasscode: Secret = "Night-Shift-9753"

    public let temporary: TemporaryDirectory
    public let deviceKeys = InMemoryDeviceKeyStore()
    public let biometrics: SimulatedBiometrics
    public let wallClock: ManualWallClock
    public let clock = ManualMonotonicClock()
    public let logs = LogCapture()
    /// Whether several people share the device, in shifts.
    public let isShared: Bool

    /// - Parameters:
    ///   - prefix: The temporary directory's name, before a unique part.
    ///   - now: The wall clock's first reading.
    public init(
        prefix: String,
        shared: Bool = false,
        biometrics: SimulatedBiometrics = SimulatedBiometrics(enrolled: false),
        now: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) throws {
        temporary = try TemporaryDirectory(prefix: prefix)
        self.biometrics = biometrics
        wallClock = ManualWallClock(now)
        isShared = shared
    }

    deinit { temporary.remove() }

    public var environment: SecureStoreEnvironment {
        SecureStoreEnvironment(
            deviceKeys: deviceKeys,
            biometrics: biometrics,
            passcodeRounds: PasscodeKeyDerivation.minimumRounds,
            now: wallClock.now,
            logger: logs.logger
        )
    }

    /// Where every user's store is.
    public var root: SecureStoreRoot {
        SecureStoreRoot(directory: temporary.appending("stores"), environment: environment)
    }

    public var registry: UserRegistry { UserRegistry(root: root) }

    /// The store manager with `options`, made for a shared device when this one is.
    public func storeManager(
        options: StoreManager.Options = StoreManager.Options(),
        strings: StoreManager.Strings = StoreManager.Strings()
    ) -> StoreManager {
        var options = options
        options.isSharedDevice = isShared
        return StoreManager(root: root, options: options, strings: strings)
    }

    /// Who uses the app: several people on a shared device, one otherwise.
    public func users(_ registry: UserRegistry) -> any OnboardingIDManager {
        isShared ? MultiUserIDManager(registry: registry) : SingleUserIDManager(registry: registry)
    }

    /// Whether user `id` has a store.
    public func storeExists(_ id: UUID) -> Bool { root.contains(id) }

    /// Opens user `id`'s store directly, as a test's independent check.
    public func openStore(_ id: UUID, passcode: Secret) throws -> SecureStore {
        try root.location(for: id).unlock(passcode: passcode)
    }

    /// Whether any log line holds one of the stories' passcodes or one of `secrets`.
    public func logsHold(anyOf secrets: [String]) -> Bool {
        let text = logs.text
        return ([Self.alicePasscode, Self.bobPasscode, Self.newPasscode].map(\.value) + secrets).contains {
            text.contains($0)
        }
    }
}

import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Logging

/// A simulated device for whole-story tests: its disk, device key store, biometrics,
/// clocks and logs outlive each "launch" of the app, which is a new session manager with
/// a new scripted presenter, as after the app was killed and started again.
final class Device: Sendable {
    static let alicePasscode: Secret = "Fuel-Check-2468"
    static let bobPasscode: Secret = "Tyre-Gauge-1357"
    static let newPasscode: Secret = "Night-Shift-9753"

    let temporary: TemporaryDirectory
    let deviceKeys = InMemoryDeviceKeyStore()
    let biometrics: SimulatedBiometrics
    let wallClock = ManualWallClock()
    let clock = ManualMonotonicClock()
    let logs = LogCapture()
    let server: TestServer
    let isShared: Bool
    let options: StoreManager.Options
    let strings: StoreManager.Strings

    init(
        shared: Bool = false,
        biometrics enrolled: Bool = false,
        sensor: BiometricKind = .fingerprint,
        server: TestServer = TestServer(),
        options: StoreManager.Options = StoreManager.Options(),
        strings: StoreManager.Strings = StoreManager.Strings()
    ) throws {
        self.strings = strings
        temporary = try TemporaryDirectory(prefix: "gangway-flows-test")
        biometrics = SimulatedBiometrics(kind: sensor, enrolled: enrolled)
        self.server = server
        isShared = shared
        var options = options
        options.isSharedDevice = shared
        self.options = options
    }

    deinit { temporary.remove() }

    var environment: SecureStoreEnvironment {
        SecureStoreEnvironment(
            deviceKeys: deviceKeys,
            biometrics: biometrics,
            passcodeRounds: PasscodeKeyDerivation.minimumRounds,
            now: wallClock.now,
            logger: logs.logger
        )
    }

    var root: SecureStoreRoot { SecureStoreRoot(directory: temporary.appending("stores"), environment: environment) }

    var registry: UserRegistry { UserRegistry(root: root) }

    var storeManager: StoreManager { StoreManager(root: root, options: options, strings: strings) }

    /// The steps of every flow: sign-in and settings, the user check, the store, the policy.
    func steps(users: any OnboardingIDManager, extra: [any Step] = []) -> [any Step] {
        [server.step, UserCheckStep(users: users), StoreStep(manager: storeManager)] + extra + [
            PasscodePolicyApplyStep(manager: storeManager)
        ]
    }

    /// Starts the app: a new session manager over the device's disk.
    func launch(
        _ answers: ScriptedPresenter.Answer...,
        extra: [any Step] = [],
        delegate: @escaping FlowController.Delegate = { _ in .stop }
    ) throws -> App {
        try launch(answers, extra: extra, delegate: delegate)
    }

    func launch(
        _ answers: [ScriptedPresenter.Answer],
        extra: [any Step] = [],
        delegate: @escaping FlowController.Delegate = { _ in .stop }
    ) throws -> App {
        let registry = registry
        let users: any OnboardingIDManager =
            isShared ? MultiUserIDManager(registry: registry) : SingleUserIDManager(registry: registry)
        let presenter = ScriptedPresenter(answers)
        let ui = RecordingSessionUI()
        let flows = FlowController(
            provider: StepListProvider(steps(users: users, extra: extra)),
            logger: logs.logger,
            delegate: delegate
        )
        let manager = try SessionManager(
            flows: flows,
            users: users,
            storeManager: storeManager,
            ui: ui,
            presenter: presenter,
            clock: clock,
            logger: logs.logger
        )
        return App(manager: manager, presenter: presenter, ui: ui, registry: registry)
    }

    /// The store directory of user `id`.
    func storeExists(_ id: UUID) -> Bool { root.contains(id) }

    /// Opens user `id`'s store directly, as a test's independent check.
    func openStore(_ id: UUID, passcode: Secret) throws -> SecureStore {
        try root.location(for: id).unlock(passcode: passcode)
    }

    /// Whether any log line holds one of the secrets the stories use.
    var logsHoldASecret: Bool {
        let text = logs.text
        let recoveryKeys = TestServer.standardAccounts.values.flatMap { account in
            [
                account.recoveryKey.map { String(format: "%02x", $0) }.joined(),
                account.recoveryKey.base64EncodedString(),
            ]
        }
        let secrets =
            [Self.alicePasscode, Self.bobPasscode, Self.newPasscode].map(\.value)
            + ["alice-pw", "bob-pw", "token-of-", "alice", "bob"] + recoveryKeys
        return secrets.contains { text.contains($0) }
    }
}

/// One launch of the app.
struct App {
    let manager: SessionManager
    let presenter: ScriptedPresenter
    let ui: RecordingSessionUI
    let registry: UserRegistry
}

extension ScriptedPresenter.Answer {
    static func signIn(_ user: String) -> Self { .signIn(.signIn(username: user, password: Secret("\(user)-pw"))) }

    static func create(_ passcode: Secret, biometrics: Bool? = nil) -> Self {
        if let biometrics { return .passcodeCreate(.enter(passcode), .enter(passcode), .biometrics(biometrics)) }
        return .passcodeCreate(.enter(passcode), .enter(passcode))
    }

    static func unlock(_ passcode: Secret) -> Self { .passcodeInput(.enter(passcode)) }

    static let acknowledge = Self.feedback(.continue)
}

import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Logging

/// A simulated device for whole-story tests: its disk, device key store, biometrics,
/// clocks and logs (a ``SimulatedDevice``) outlive each "launch" of the app, which is a
/// new session manager over the flows' own step list with a new scripted presenter, as
/// after the app was killed and started again.
@dynamicMemberLookup
final class Device: Sendable {
    static let alicePasscode = SimulatedDevice.alicePasscode
    static let bobPasscode = SimulatedDevice.bobPasscode
    static let newPasscode = SimulatedDevice.newPasscode

    let disk: SimulatedDevice
    let server: TestServer
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
        disk = try SimulatedDevice(
            prefix: "gangway-flows-test",
            shared: shared,
            biometrics: SimulatedBiometrics(kind: sensor, enrolled: enrolled)
        )
        self.server = server
        self.options = options
        self.strings = strings
    }

    subscript<Value>(dynamicMember keyPath: KeyPath<SimulatedDevice, Value>) -> Value { disk[keyPath: keyPath] }

    var storeManager: StoreManager { disk.storeManager(options: options, strings: strings) }

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
        let registry = disk.registry
        let users = disk.users(registry)
        let presenter = ScriptedPresenter(answers)
        let ui = RecordingSessionUI()
        let flows = FlowController(
            provider: StepListProvider(steps(users: users, extra: extra)),
            logger: disk.logs.logger,
            delegate: delegate
        )
        let manager = try SessionManager(
            flows: flows,
            users: users,
            storeManager: storeManager,
            ui: ui,
            presenter: presenter,
            clock: disk.clock,
            logger: disk.logs.logger
        )
        return App(manager: manager, presenter: presenter, ui: ui, registry: registry)
    }

    func storeExists(_ id: UUID) -> Bool { disk.storeExists(id) }

    func openStore(_ id: UUID, passcode: Secret) throws -> SecureStore {
        try disk.openStore(id, passcode: passcode)
    }

    /// Whether any log line holds one of the secrets the stories use.
    var logsHoldASecret: Bool {
        let recoveryKeys = TestServer.standardAccounts.values.flatMap { account in
            [
                account.recoveryKey.map { String(format: "%02x", $0) }.joined(),
                account.recoveryKey.base64EncodedString(),
            ]
        }
        return disk.logsHold(anyOf: ["alice-pw", "bob-pw", "token-of-", "alice", "bob"] + recoveryKeys)
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

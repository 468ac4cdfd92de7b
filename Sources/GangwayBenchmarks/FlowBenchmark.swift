import ArgumentParser
import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import Logging
import Synchronization

/// `gangway-benchmark flows`: the restore flow from launch to an open session, and a user
/// switch on a shared device, each reported as time beyond the passcode key derivation
/// measured in the same run (the derivation is deliberately slow; the rest is Gangway's).
struct FlowBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flows",
        abstract: "Benchmark the restore flow and a user switch; prints name: value lines."
    )

    @Option(help: "Runs per measurement; the median is reported.")
    var repetitions = 9

    @Option(help: "Entries in each user's store, so opening is not measured on an empty store.")
    var entries = 1_000

    static let passcodes: [Secret] = ["Fuel-Check-2468", "Tyre-Gauge-1357"]

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .warning
        let environment = SecureStoreEnvironment(deviceKeys: InMemoryDeviceKeyStore(), logger: logger)
        let runs = max(3, repetitions)
        print("flows.config.kdf_rounds: \(environment.passcodeRounds)")
        print("flows.config.entries: \(entries)")

        let kdf = try Measure.keyDerivation(rounds: environment.passcodeRounds, repetitions: runs)
        let (openStore, restore) = try await restoreTime(
            root: SecureStoreRoot(directory: directory.appendingPathComponent("single"), environment: environment),
            logger: logger,
            runs: runs
        )
        let switchTime = try await userSwitchTime(
            root: SecureStoreRoot(directory: directory.appendingPathComponent("shared"), environment: environment),
            logger: logger,
            runs: runs
        )
        Measure.report("flows.kdf_ms", kdf)
        Measure.report("flows.restore_ms", restore)
        Measure.report("flows.restore.beyond_kdf_ms", max(0, restore - kdf))
        Measure.report("flows.open_store_ms", openStore)
        Measure.report("flows.restore.beyond_open_store_ms", max(0, restore - openStore))
        Measure.report("flows.user_switch_ms", switchTime)
        Measure.report("flows.user_switch.beyond_kdf_ms", max(0, switchTime - kdf))
    }

    /// A settings step that sends the same policy every time, so the policy step compares
    /// it on every restore, as it would against a real server.
    private static let settings = ClosureStep(
        "settings",
        onboard: { context in
            var context = context
            context.info[.passcodeRequirement] = .required(.standard)
            return context
        },
        restore: { context in
            var context = context
            context.info[.passcodeRequirement] = .required(.standard)
            return context
        }
    )

    private func manager(
        root: SecureStoreRoot,
        shared: Bool,
        presenter: PasscodePresenter,
        extra: [any Step],
        logger: Logger
    ) throws -> SessionManager {
        let storeManager = StoreManager(root: root, options: .init(isSharedDevice: shared))
        let registry = UserRegistry(root: root)
        let users: any OnboardingIDManager =
            shared ? MultiUserIDManager(registry: registry) : SingleUserIDManager(registry: registry)
        let steps: [any Step] =
            extra + [Self.settings, StoreStep(manager: storeManager), PasscodePolicyApplyStep(manager: storeManager)]
        return try SessionManager(
            flows: FlowController(provider: StepListProvider(steps), logger: logger),
            users: users,
            storeManager: storeManager,
            ui: NoSessionUI(),
            presenter: presenter,
            logger: logger
        )
    }

    private func fill(_ manager: SessionManager) async throws {
        guard let store = await manager.store else { throw ValidationError("no store after onboarding") }
        try store.write { batch throws(SecureStoreError) in
            for index in 0..<entries { try batch.put("check \(index)", forKey: "aircraft.\(index)") }
        }
    }

    /// Launch to open session: a new session manager, the restore flow with the passcode.
    /// Also returns the time of the store manager's open alone (passcode screen, attempt
    /// record, derivation, unwrap), so the session and flow overhead can be told apart.
    private func restoreTime(root: SecureStoreRoot, logger: Logger, runs: Int) async throws -> (Double, Double) {
        let passcode = Self.passcodes[0]
        let onboarding = PasscodePresenter(passcode)
        let first = try manager(root: root, shared: false, presenter: onboarding, extra: [], logger: logger)
        try await first.open()
        try await fill(first)
        try await first.close()

        guard let id = try UserRegistry(root: root).users().first?.id else {
            throw ValidationError("no user after onboarding")
        }
        let storeManager = StoreManager(root: root)
        let openStore = try await Measure.median(repetitions: runs) {
            try await storeManager.openStore(for: id, presenter: PasscodePresenter(passcode)).close()
        }
        let restore = try await Measure.median(repetitions: runs) {
            let presenter = PasscodePresenter(passcode)
            let launched = try manager(root: root, shared: false, presenter: presenter, extra: [], logger: logger)
            try await launched.open()
            try await launched.close()
            guard presenter.shown == 1 else { throw ValidationError("the restore asked \(presenter.shown) screens") }
        }
        return (openStore, restore)
    }

    /// From one user's open session to the other's: close, restore with the passcode.
    private func userSwitchTime(root: SecureStoreRoot, logger: Logger, runs: Int) async throws -> Double {
        let names = Mutex(["alice", "bob"])
        let signIn = ClosureStep(
            "sign-in",
            onboard: { context in
                var context = context
                let name = names.withLock { $0.removeFirst() }
                context.info[.serverUser] = ServerUser(id: name, displayName: name)
                return context
            }
        )
        let presenter = PasscodePresenter(Self.passcodes[0])
        let manager = try manager(root: root, shared: true, presenter: presenter, extra: [signIn], logger: logger)
        let first = try await manager.open().onboardingID
        try await fill(manager)
        presenter.use(Self.passcodes[1])
        let second = try await manager.addUser().onboardingID
        try await fill(manager)

        var next = 0
        let users = [(first, Self.passcodes[0]), (second, Self.passcodes[1])]
        let time = try await Measure.median(repetitions: runs) {
            let (id, passcode) = users[next % 2]
            next += 1
            presenter.use(passcode)
            try await manager.switchUser(to: id)
        }
        let expected = 2 + runs
        guard presenter.shown == expected else {
            throw ValidationError("the switches asked \(presenter.shown) screens, not \(expected)")
        }
        return time
    }
}

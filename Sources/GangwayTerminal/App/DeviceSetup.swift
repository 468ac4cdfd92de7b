import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayServices
import GangwayStore
import GangwaySystem
import Logging

/// The device the app runs on: its ID, key store, stores, biometric sensor and the
/// session manager over them, all under the data directory's `device/`.
struct DeviceSetup: Sendable {
    let options: DeviceAppOptions
    let console: Console
    let logger: Logger
    let clock: SimulatedClock
    let identity: DeviceIdentity
    let root: SecureStoreRoot
    /// The simulated fingerprint sensor.
    let sensor: SimulatedFingerprintSensor
    /// The simulated platform permissions (camera, location, notifications).
    let permissions: SimulatedPermissions
    /// The app's own logs, kept for upload where each user allows it.
    let logs: LogCollector
    let registry: UserRegistry
    /// The device's copy of the app's data, shared by its users.
    let sharedData: SharedAppData
    /// The `offline on|off` switch every call to the server goes through.
    let network = NetworkSwitch()

    init(options: DeviceAppOptions, console: Console, logs: LogCollector, clock: SimulatedClock) throws {
        self.options = options
        self.console = console
        self.logs = logs
        let logger = DeviceApp.appLogger(collector: logs)
        self.logger = logger
        self.clock = clock
        let directory = options.deviceDirectory
        identity = DeviceIdentity(
            deviceID: try Self.deviceID(in: directory),
            deviceName: "Gangway terminal (\(ProcessInfo.processInfo.hostName))",
            appVersion: DeviceApp.version
        )
        let biometrics = SimulatedFingerprintSensor(
            isEnrolled: options.biometrics,
            enrollmentFile: directory.appendingPathComponent("fingerprint-enrollments")
        ) { console.line($0) }
        sensor = biometrics
        permissions = SimulatedPermissions(file: directory.appendingPathComponent("permissions.json"), console: console)
        root = SecureStoreRoot(
            directory: directory.appendingPathComponent("stores"),
            environment: SecureStoreEnvironment(
                deviceKeys: FileDeviceKeyStore(directory: directory.appendingPathComponent("device-keys")),
                biometrics: biometrics,
                passcodeRounds: options.passcodeRounds,
                logger: logger
            )
        )
        registry = UserRegistry(root: root)
        sharedData = SharedAppData(
            location: SecureStoreLocation(
                directory: directory.appendingPathComponent("shared-data"),
                environment: root.environment
            )
        )
    }

    /// The mobile-services setup: how the device finds its configuration and reaches
    /// the server (with progress lines on a terminal).
    func services(
        serverURL: URL,
        activationKeyPEM: String,
        configurationStore: ConfigurationStore
    ) throws -> MobileServices {
        let key = try SignedActivationProvider.pinnedKey(pem: activationKeyPEM)
        let transport = TerminalTransport(
            base: ServiceTransport.standard(),
            network: network,
            console: console
        )
        return MobileServices(
            device: identity,
            loader: .standard([
                FileConfigurationProvider(
                    .managed,
                    file: options.deviceDirectory.appendingPathComponent("managed-configuration.json")
                ),
                SignedActivationProvider.link(pinnedKey: key),
                SignedActivationProvider.qrCode(pinnedKey: key),
                DiscoveryProvider(discoveryURL: serverURL, transport: transport),
            ]),
            configurationStore: configurationStore,
            welcome: .init(offersDemoMode: true, termsLinks: options.termsLinks),
            transport: transport,
            logger: logger
        )
    }

    /// The device's outbox: the pending changes of all its users, sealed to the server.
    func outbox() throws -> Outbox {
        let outbox = try Outbox(
            directory: options.deviceDirectory.appendingPathComponent("outbox"),
            deviceKeys: root.environment.deviceKeys
        )
        if outbox.unfiled > 0 {
            logger.warning(
                "the device's key store lost the outbox's tag key; its waiting changes go one by one until each author's next sync files them again",
                metadata: ["changes": "\(outbox.unfiled)"]
            )
        }
        return outbox
    }

    /// The session manager with the default mobile-services step lists, handing `work`
    /// over at each launch, switch and new user.
    func sessionManager(services: MobileServices, work: OfflineWork) throws -> SessionManager {
        var storeOptions = StoreManager.Options()
        storeOptions.isSharedDevice = options.isSharedDevice
        let storeManager = StoreManager(root: root, options: storeOptions)
        let users: any OnboardingIDManager =
            options.isSharedDevice ? MultiUserIDManager(registry: registry) : SingleUserIDManager(registry: registry)
        let presenter = TerminalPresenter(console: console)
        return try SessionManager(
            flows: FlowController(
                provider: MobileServicesFlowProvider(
                    services: services,
                    storeManager: storeManager,
                    users: users,
                    extra: AppTerms.steps,
                    placement: options.agreementsAfterPasscode ? .afterPasscode : .beforePasscode,
                    permissions: options.permissions.isEmpty
                        ? nil : AppPermissions.step(asking: options.permissions, platform: permissions),
                    logUpload: LogUploadStep(
                        services: services,
                        collector: logs,
                        consentTopic: AppTerms.usageReports.topic
                    ),
                    handOver: OfflineHandOverStep(work: work, observer: OfflineCommands.handOverLines(console: console))
                ),
                logger: logger
            ) { failure in
                // A hand-over that failed asks: try again, or go on offline.
                await OfflineHandOverStep.ask(presenter, after: failure)
            },
            users: users,
            storeManager: storeManager,
            ui: TerminalSessionUI(console: console),
            presenter: presenter,
            clock: clock,
            logger: logger,
            logout: services.logout
        )
    }

    /// The device's ID, made at first launch and kept.
    private static func deviceID(in directory: URL) throws -> String {
        let file = directory.appendingPathComponent("device-id")
        if let saved = try? String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            !saved.isEmpty
        {
            return saved
        }
        let id = "terminal-" + UUID().uuidString.lowercased().prefix(8)
        try PrivateFiles.write(Data((id + "\n").utf8), to: file)
        return id
    }

    /// The key a remote server signs activation payloads with: fetched at first use and
    /// kept, so a later change of key is noticed rather than trusted. While the device is
    /// not activated, a rotated key is pinned in its place when the server's chain shows
    /// the kept key endorsed it (``ServerActivationKey/follows(from:)``), so a key older
    /// than the pin no longer activates the device; a server that cannot be asked, or
    /// whose key does not follow from the pin, leaves the pin as it is. An activated
    /// device asks nothing here: its launch does not wait on the network.
    static func activationKey(from serverURL: URL, directory: URL, activated: Bool) async throws -> String {
        let file = directory.appendingPathComponent("activation-key.pem")
        guard let saved = pinnedActivationKey(in: directory) else {
            let pem = try await MobileServicesClient(serverURL: serverURL).activationKeyPEM()
            try PrivateFiles.write(Data(pem.utf8), to: file)
            return pem
        }
        guard !activated, let pinned = try? SignedActivationProvider.pinnedKey(pem: saved),
            let shown = try? await MobileServicesClient(serverURL: serverURL).activationKey(),
            shown.pem != saved, shown.follows(from: pinned)
        else {
            return saved
        }
        try PrivateFiles.write(Data(shown.pem.utf8), to: file)
        return shown.pem
    }

    /// The key ``activationKey(from:directory:)`` pinned, if it did.
    static func pinnedActivationKey(in directory: URL) -> String? {
        try? String(contentsOf: directory.appendingPathComponent("activation-key.pem"), encoding: .utf8)
    }

    /// A device activated against one server and started with `--server` naming another
    /// address: the saved configuration follows the new address when the server there
    /// shows the activation key this device pinned, or one it endorsed (the same server,
    /// moved). A server it
    /// cannot reach changes nothing now; another server, or any server when the device
    /// pinned no key, is refused, and nothing is pinned for it.
    ///
    /// The key is public: this keeps a device from mixing up two servers (its session
    /// sent to the wrong one), not from an impostor at an address the person typed, which
    /// only TLS (an `https` server) keeps out.
    /// - Throws: ``DeviceApp/OtherServer`` when the server at `url` cannot prove it is
    ///   the one the device was activated against.
    /// - Returns: The address the device was activated against, when it moved.
    static func follow(
        server url: URL,
        pinnedKeyPEM: String?,
        store: ConfigurationStore
    ) async throws -> URL? {
        guard var configuration = try store.load(), configuration.serverURL != url else { return nil }
        let key: ServerActivationKey
        do {
            key = try await MobileServicesClient(serverURL: url).activationKey()
        } catch {
            return nil
        }
        let old = configuration.serverURL
        guard let pinnedKeyPEM, let pinned = try? SignedActivationProvider.pinnedKey(pem: pinnedKeyPEM),
            key.follows(from: pinned)
        else {
            throw DeviceApp.OtherServer(activatedAgainst: old, given: url)
        }
        configuration.serverURL = url
        try store.save(configuration)
        return old
    }

    /// The embedded server listens on a new port at each start: the saved configuration
    /// follows it.
    static func followEmbeddedServer(to url: URL, store: ConfigurationStore) throws {
        guard var configuration = try store.load(), configuration.appID == DemoApp.appID,
            configuration.serverURL.host == "127.0.0.1", configuration.serverURL != url
        else { return }
        configuration.serverURL = url
        try store.save(configuration)
    }
}

extension DeviceApp {
    /// The app version: what the device reports to the server (an admin's minimum
    /// version is compared with it) and what `gangway --version` prints.
    public static let version = "1.0.0"
}

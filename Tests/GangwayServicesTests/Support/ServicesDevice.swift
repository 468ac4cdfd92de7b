import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayServer
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Logging
import OpenAPIRuntime
import Synchronization
import Testing

/// A simulated device that onboards against a `TestServer` over HTTP: its disk, device
/// key store, clocks and logs (a ``SimulatedDevice``) outlive each launch, which is a new
/// session manager with the default step lists and a new scripted presenter.
@dynamicMemberLookup
final class ServicesDevice: Sendable {
    static let alicePasscode = SimulatedDevice.alicePasscode
    static let bobPasscode = SimulatedDevice.bobPasscode
    static let newPasscode = SimulatedDevice.newPasscode

    let disk: SimulatedDevice
    let server: RunningTestServer
    let appVersion: String
    /// The browser of an oauth2 app's sign-in; `nil`: the device grant.
    let browser: (any AuthorizationBrowser)?
    /// The legal texts the welcome screen links.
    let termsLinks: [WelcomeScreen.Link]
    /// The welcome screen's images, above and below its text.
    let welcomeImages: (top: String?, bottom: String?)
    /// The activation link the app was opened by, if it was.
    let launchLink: String?
    /// The onboarding's agreement steps, and where they go.
    let agreements: [any Step]
    let placement: MobileServicesFlowProvider.AgreementsPlacement
    /// The platform permissions the onboarding asks for.
    let permissions: PermissionsStep?
    /// The app's logs, when the app uploads them under the consent `logConsent`.
    let collector: LogCollector?
    let logConsent: String
    /// How the app talks HTTP; `nil`: the default transport.
    let transport: (any ClientTransport)?
    /// Whether the flows hand the device's offline work over (``OfflineHandOverStep``),
    /// telling `handOverEvents`.
    let handsOver: Bool
    let handOverEvents = Mutex<[OfflineHandOverStep.Event]>([])

    init(
        server: RunningTestServer,
        shared: Bool = false,
        appVersion: String = "1.4.0",
        browser: (any AuthorizationBrowser)? = nil,
        termsLinks: [WelcomeScreen.Link] = [],
        welcomeImages: (top: String?, bottom: String?) = (nil, nil),
        launchLink: String? = nil,
        agreements: [any Step] = [],
        placement: MobileServicesFlowProvider.AgreementsPlacement = .beforePasscode,
        permissions: PermissionsStep? = nil,
        collector: LogCollector? = nil,
        logConsent: String = "usage-reports",
        transport: (any ClientTransport)? = nil,
        handsOver: Bool = false
    ) throws {
        self.transport = transport
        self.handsOver = handsOver
        self.collector = collector
        self.logConsent = logConsent
        self.agreements = agreements
        self.placement = placement
        self.permissions = permissions
        self.termsLinks = termsLinks
        self.welcomeImages = welcomeImages
        self.launchLink = launchLink
        // The server checks tokens' times against its own clock: the device's starts now.
        disk = try SimulatedDevice(prefix: "gangway-services-device", shared: shared, now: Date())
        self.server = server
        self.appVersion = appVersion
        self.browser = browser
    }

    subscript<Value>(dynamicMember keyPath: KeyPath<SimulatedDevice, Value>) -> Value { disk[keyPath: keyPath] }

    /// Where a device-management system would put the configuration; absent unless a test writes it.
    var managedFile: URL { disk.temporary.appending("managed.json") }

    var configurationStore: ConfigurationStore {
        ConfigurationStore(file: disk.temporary.appending("configuration.json"))
    }

    var services: MobileServices {
        let key = try! SignedActivationProvider.pinnedKey(pem: server.pinnedActivationKeyPEM)
        var services = MobileServices(
            device: DeviceIdentity(deviceID: "stand-12", deviceName: "Stand 12 tablet", appVersion: appVersion),
            loader: .standard([
                FileConfigurationProvider(.managed, file: managedFile),
                DiscoveryProvider(discoveryURL: server.url),
                SignedActivationProvider.link(pinnedKey: key, launchLink: launchLink),
                SignedActivationProvider.qrCode(pinnedKey: key),
            ]),
            configurationStore: configurationStore,
            welcome: .init(
                offersDemoMode: true,
                termsLinks: termsLinks,
                topImage: welcomeImages.top,
                bottomImage: welcomeImages.bottom
            ),
            transport: transport,
            now: disk.wallClock.now,
            logger: disk.logs.logger
        )
        // The server answers a poll sooner than its interval with slow_down and an approved
        // code at the next poll whatever the wait, so the stories need not wait 5 seconds.
        services.sleep = { _ in try await Task.sleep(for: .milliseconds(20)) }
        services.browser = browser
        return services
    }

    var storeManager: StoreManager { disk.storeManager() }

    /// The device's offline work: its outbox, shared by its users.
    var work: OfflineWork {
        get throws {
            OfflineWork(
                services: services,
                outbox: try Outbox(directory: disk.temporary.appending("outbox"), deviceKeys: disk.deviceKeys)
            )
        }
    }

    /// Starts the app: a new session manager over the device's disk.
    func launch(_ answers: ScriptedPresenter.Answer...) throws -> ServicesApp {
        try launch(answers)
    }

    /// - Parameter delegate: The flow controller's answer to a failed step; `nil`: its default.
    func launch(
        _ answers: [ScriptedPresenter.Answer],
        delegate: FlowController.Delegate? = nil
    ) throws -> ServicesApp {
        let registry = disk.registry
        let users = disk.users(registry)
        let presenter = ScriptedPresenter(answers)
        let services = services
        let storeManager = storeManager
        let flows = FlowController(
            provider: MobileServicesFlowProvider(
                services: services,
                storeManager: storeManager,
                users: users,
                extra: agreements,
                placement: placement,
                permissions: permissions,
                logUpload: collector.map { LogUploadStep(services: services, collector: $0, consentTopic: logConsent) },
                handOver: handsOver
                    ? OfflineHandOverStep(work: try work) { [self] event in
                        self.handOverEvents.withLock { $0.append(event) }
                    } : nil
            ),
            logger: disk.logs.logger,
            delegate: delegate ?? { FlowController.defaultDisposition($0) }
        )
        let manager = try SessionManager(
            flows: flows,
            users: users,
            storeManager: storeManager,
            ui: RecordingSessionUI(),
            presenter: presenter,
            clock: disk.clock,
            logger: disk.logs.logger,
            logout: services.logout
        )
        return ServicesApp(manager: manager, presenter: presenter, registry: registry)
    }

    func openStore(_ id: UUID, passcode: Secret) throws -> SecureStore {
        try disk.openStore(id, passcode: passcode)
    }

    func storeExists(_ id: UUID) -> Bool { disk.storeExists(id) }

    /// Points the saved configuration at a port nothing listens on: the device is offline.
    func goOffline() throws {
        var configuration = try #require(try configurationStore.load())
        configuration.serverURL = URL(string: "http://127.0.0.1:1")!
        try configurationStore.save(configuration)
    }

    /// Points the saved configuration back at the server.
    func goOnline() throws {
        var configuration = try #require(try configurationStore.load())
        configuration.serverURL = server.url
        try configurationStore.save(configuration)
    }

    /// Whether any log line holds a secret the stories use.
    var logsHoldASecret: Bool {
        disk.logsHold(anyOf: ServerSeed.checks.users.map(\.password.value) + ["gw_"])
    }
}

/// One launch of the app.
struct ServicesApp {
    let manager: SessionManager
    let presenter: ScriptedPresenter
    let registry: UserRegistry
}

extension ScriptedPresenter.Answer {
    static func signIn(_ user: String, password: String? = nil) -> Self {
        .signIn(
            .signIn(
                username: user,
                password: password.map { Secret($0) }
                    ?? ServerSeed.checks.users.first { $0.username == user }?.password ?? ""
            )
        )
    }

    static func create(_ passcode: Secret) -> Self { .passcodeCreate(.enter(passcode), .enter(passcode)) }

    static func unlock(_ passcode: Secret) -> Self { .passcodeInput(.enter(passcode)) }

    static let byEmail = Self.welcome(.activate(.email("alice@airline.example")))

    /// The device-code screen, answered by `user` at the server's verification page on
    /// another device, as a browser uses it: the page opened with the code, its form sent
    /// to approve or deny, with their password.
    static func deviceCode(
        _ server: RunningTestServer,
        _ user: String = "alice",
        approve: Bool = true
    ) -> Self {
        .deviceCode { screen in
            let password = ServerSeed.checks.users.first { $0.username == user }?.password.value ?? ""
            let browser = PageBrowser(server)
            let page = try await browser.get(
                screen.verificationURL.path + "?" + RunningTestServer.formBody([("user_code", screen.userCode)])
            )
            guard page.status == .ok else { throw TestServerError("the verification page answered \(page.status)") }
            let reply = try await browser.submit(
                page,
                to: screen.verificationURL.path,
                [("username", user), ("password", password), ("decision", approve ? "approve" : "deny")]
            )
            guard reply.status == .ok else { throw TestServerError("the verification page answered \(reply.status)") }
        }
    }
    static let acknowledge = Self.feedback(.continue)
}

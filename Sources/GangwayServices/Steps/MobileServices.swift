import Foundation
import GangwayFlows
import GangwayScreens
import GangwaySystem
import Logging
import OpenAPIRuntime

/// What the mobile-services steps share: who the device is, how it finds its
/// configuration, how it talks HTTP, the welcome screen's options, a wall clock and a
/// logger.
///
/// ```swift
/// let services = MobileServices(
///     device: DeviceIdentity(deviceID: id, deviceName: "Stand 12 tablet", appVersion: "1.4.0"),
///     loader: .standard([FileConfigurationProvider(.bundled, file: bundledURL),
///                        DiscoveryProvider(discoveryURL: discoveryURL)]),
///     configurationStore: ConfigurationStore(file: appSupport.appending(path: "configuration.json")))
/// let provider = MobileServicesFlowProvider(services: services, storeManager: storeManager, users: users)
/// let flows = FlowController(provider: provider)
/// let manager = try SessionManager(flows: flows, …, logout: services.logout)
/// ```
public struct MobileServices: Sendable {
    /// The welcome screen's options.
    public struct WelcomeOptions: Sendable {
        /// Whether demo mode is offered.
        public var offersDemoMode: Bool
        /// Legal texts the user must accept on the welcome screen.
        public var termsLinks: [WelcomeScreen.Link]
        /// The screen's texts.
        public var strings: WelcomeScreen.Strings
        /// Image names for the renderer, above and below the text (an app's logo, its
        /// partner's).
        public var topImage: String?
        public var bottomImage: String?

        public init(
            offersDemoMode: Bool = false,
            termsLinks: [WelcomeScreen.Link] = [],
            strings: WelcomeScreen.Strings = WelcomeScreen.Strings(),
            topImage: String? = nil,
            bottomImage: String? = nil
        ) {
            self.offersDemoMode = offersDemoMode
            self.termsLinks = termsLinks
            self.strings = strings
            self.topImage = topImage
            self.bottomImage = bottomImage
        }
    }

    /// How the device introduces itself.
    public var device: DeviceIdentity
    /// Where the configuration comes from.
    public var loader: ConfigurationLoader
    /// Where the configuration is kept once found.
    public var configurationStore: ConfigurationStore
    /// The welcome screen's options.
    public var welcome: WelcomeOptions
    /// The HTTP transport; `nil`: ``GangwayClient/ServiceTransport/standard(timeout:)``.
    public var transport: (any ClientTransport)?
    /// The wall clock, for the days without server contact.
    public var now: @Sendable () -> Date
    /// The browser an `oauth2` app signs people in with (the authorization code grant);
    /// `nil`: the device authorization grant, for a device without one.
    public var browser: (any AuthorizationBrowser)? = nil
    /// How the device waits between polls of a device code.
    public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    public var logger: Logger
    /// One renewal of an ended session at a time.
    let renewal = SessionRenewal()

    public init(
        device: DeviceIdentity,
        loader: ConfigurationLoader,
        configurationStore: ConfigurationStore,
        welcome: WelcomeOptions = WelcomeOptions(),
        transport: (any ClientTransport)? = nil,
        now: @escaping @Sendable () -> Date = WallClock.now,
        logger: Logger = Logger(label: "gangway.services")
    ) {
        self.device = device
        self.loader = loader
        self.configurationStore = configurationStore
        self.welcome = welcome
        self.transport = transport ?? ServiceTransport.standard()
        self.now = now
        self.logger = logger
    }

    /// The client of the server `configuration` names.
    public func client(for configuration: AppConfiguration) -> MobileServicesClient {
        MobileServicesClient(serverURL: configuration.serverURL, transport: transport, now: now)
    }

    /// The client of the server the context's configuration names.
    func client(_ context: FlowContext) throws(ServiceFlowError) -> (MobileServicesClient, AppConfiguration) {
        guard let configuration = context.info[.appConfiguration] else { throw .notConfigured }
        return (client(for: configuration), configuration)
    }

    // MARK: Logout and logs

    /// Signs out on the server: revokes the refresh token (an `oauth2` app's) and the
    /// session's token, then forgets them. Fits
    /// ``GangwayFlows/SessionManager``'s logout hook, which then closes the session. A
    /// token the server no longer accepts counts as signed out.
    /// - Throws: ``ServiceError/unreachable`` and other failures: the session stays open.
    public func logout(_ context: FlowContext) async throws {
        let (client, configuration) = try client(context)
        guard let token = try context.credentials.sessionToken() else { return }
        if let refresh = try context.credentials.refreshToken() {
            // The refresh token's family ends, with every session it opened (RFC 7009).
            try await client.revoke(appID: configuration.appID, refreshToken: refresh)
            try context.credentials.removeValue(forKey: ServiceCredentials.refreshToken)
        }
        do {
            try await client.signOut(appID: configuration.appID, token: token)
        } catch {
            guard error == .sessionExpired || error == .registrationLocked || error == .registrationWiped else {
                throw error
            }
            logger.notice("the server had already ended the session", metadata: ["reason": "\(error)"])
        }
        try context.credentials.removeValue(forKey: ServiceCredentials.token)
        logger.info("signed out")
    }

    /// Signs out on this device only, for when the server cannot be reached: forgets the
    /// session's tokens (and an `oauth2` app's refresh token), so nothing on the device
    /// can use the session again. The server's session is not revoked: it ends when it
    /// expires. Fits ``GangwayFlows/SessionManager/logout(using:)``.
    public func forgetSession(_ context: FlowContext) async throws {
        try context.credentials.removeValue(forKey: ServiceCredentials.refreshToken)
        try context.credentials.removeValue(forKey: ServiceCredentials.token)
        logger.notice("signed out on this device only: the server's session ends when it expires")
    }

    /// Uploads log records when the app's log settings allow: those at or above the
    /// settings' level, in batches no larger than the server takes.
    /// - Returns: How many records the server accepted (0 when uploads are off).
    public func uploadLogs(_ records: [LogRecord], context: FlowContext) async throws -> Int {
        let (client, configuration) = try client(context)
        guard let token = try context.credentials.sessionToken() else { throw ServiceError.notSignedIn }
        guard let settings = try context.credentials.serverSettings(),
            settings.logUploadEnabled
        else { return 0 }
        let wanted = records.filter { $0.level >= settings.logLevel }
        var accepted = 0
        var start = wanted.startIndex
        while start < wanted.endIndex {
            let end = min(start + settings.maxLogEntriesPerUpload, wanted.endIndex)
            accepted += try await client.uploadLogs(
                appID: configuration.appID,
                token: token,
                entries: Array(wanted[start..<end])
            )
            start = end
        }
        return accepted
    }
}

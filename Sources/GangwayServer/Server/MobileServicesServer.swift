import Crypto
import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerStorage
import GangwaySystem
import GangwayWireServer
import Hummingbird
import Logging
import NIOCore
import OpenAPIHummingbird
import OpenAPIRuntime
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The mobile-services server: storage, the API and the HTTP server around it.
///
/// ```swift
/// let server = try await MobileServicesServer(configuration: configuration, logger: logger)
/// print(server.adminToken)          // where the admin token is, never the token
/// try await server.run()            // until SIGINT, SIGTERM or SIGHUP
/// ```
public struct MobileServicesServer: Sendable {
    public let configuration: ServerConfiguration
    /// The storage, its hot reads cached for ``ServerConfiguration/cacheLifetime``.
    public let storage: ServerStorage
    /// What happened to the admin token at startup.
    public let adminToken: AdminTokenOutcome
    let logger: Logger
    /// The server's clock (``GangwaySystem/WallClock`` unless a test gives its own).
    public let now: @Sendable () -> Date
    let keys: ServerKeys
    /// One per server, so what it keeps of each provider (discovery, keys) is shared.
    let providers: IdentityProviderClient
    let passwords: PasswordHasher
    /// Whether the server should be sent requests (`/health/ready`).
    let readiness: ServerReadiness
    /// The operator's figures (``ServerMetrics``), shown on the metrics listener; recorded
    /// only when there is one (``ServerConfiguration/metricsAddress``).
    let metrics: ServerMetrics
    /// The devices waiting for an entity set to change, for every instance of the API;
    /// the notices of writes through other processes wake it at once.
    let setWatch: SetWatch
    /// Where the server's spans go (``ServerTracer``): none unless it was given one.
    let tracer: ServerTracer

    /// Opens (creating and migrating) the storage the configuration names, and makes
    /// the admin token and the activation signing key at first start.
    ///
    /// - Parameters:
    ///   - driver: The database to use instead of the one the configuration names.
    ///   - renewAdminToken: Writes a new admin token and retires the old one.
    ///   - now: The wall clock; tests inject one.
    ///   - tracer: Where a span of each request, statement and request onward goes
    ///     (``TraceExport`` makes one that exports by OTLP); none by default.
    public init(
        configuration: ServerConfiguration,
        driver: (any StorageDriver)? = nil,
        renewAdminToken: Bool = false,
        logger: Logger = Logger(label: "gangway.server"),
        now: @escaping @Sendable () -> Date = WallClock.now,
        tracer: ServerTracer = .none
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        self.now = now
        self.tracer = tracer
        consoleURL = configuration.consoleAddress.map { PublicURL($0.url(boundPort: $0.port)) }
        apiURL = PublicURL(configuration.initialPublicURL)
        let opened = try driver ?? Self.openDriver(configuration, logger: logger)
        if let postgres = opened as? PostgresDriver {
            // A database that is starting gets a moment; one line says what is awaited.
            try await postgres.waitUntilReachable(within: configuration.storageStartupWait) {
                logger.notice("Waiting for PostgreSQL at \(postgres.address)")
            }
        }
        let storage = ServerStorage(opened, cache: ReadCache(lifetime: configuration.cacheLifetime), tracer: tracer)
        self.storage = storage
        readiness = ServerReadiness(storage: storage)
        let metrics = ServerMetrics(recording: configuration.metricsAddress != nil, storage: storage)
        self.metrics = metrics
        // As many wait at once as the server holds connections, each carrying one wait.
        setWatch = SetWatch(storage: storage, capacity: configuration.maximumConnections, logger: logger) {
            metrics.waitingDevices($0)
        }
        let (token, keys) = try await storage.withConnections {
            try await storage.migrate()
            let keys = try await ServerKeys.load(
                serverKeyFile: configuration.serverKeyPath,
                storage: storage,
                at: now()
            )
            let token = try await AdminToken.bootstrap(
                storage: storage,
                file: configuration.adminTokenPath,
                renew: renewAdminToken
            )
            return (token, keys)
        }
        adminToken = token.outcome
        self.keys = keys
        // Start-up opened SQLite readers that only serving needs: they close until then,
        // so servers made long before they serve (tests make many) hold few files.
        (opened as? SQLiteDriver)?.closeIdleReaders()
        providers = IdentityProviderClient(now: now, tracer: tracer)
        passwords = PasswordHasher(
            cost: configuration.bcryptCost,
            concurrentChecks: configuration.concurrentPasswordChecks
        )
    }

    static func openDriver(_ configuration: ServerConfiguration, logger: Logger) throws -> any StorageDriver {
        // Owner-only from the start: the directory holds the admin token, and the
        // database the signing key, password hashes and uploaded logs.
        try PrivateFiles.makeDirectory(configuration.dataDirectory)
        if let url = configuration.postgresURL {
            return try PostgresDriver(url: url, logger: logger)
        }
        let database = configuration.sqlitePath
        try PrivateFiles.prepareDatabase(database)
        return try SQLiteDriver(path: database.path)
    }

    /// The public key activation payloads are signed with now, for clients to pin.
    public func activationPublicKeyPEM() async throws -> String { try await keys.activation.publicKey().publicKeyPEM }

    /// What one listening address serves.
    enum Listener {
        /// The API, the device and OAuth pages, and the console under `/console`.
        case everything
        /// All but the console, which listens on its own address.
        case api
        /// The console alone.
        case console
    }

    /// The responder for every request: the device reads' own path, and the
    /// router with every route of the API document and `/openapi.json`, all inside the
    /// gateway middleware; or, on the console's own address, the console's pages alone.
    ///
    /// - Parameters:
    ///   - publicURL: Where devices reach the server; read at each request, so it can be
    ///     set once the port is known.
    ///   - consoleURL: Where operators reach the console, when it listens apart.
    func responder(
        publicURL: PublicURL,
        consoleURL: PublicURL? = nil,
        listener: Listener = .everything
    ) throws -> GatewayResponder {
        let router = Router(context: ServerContext.self)
        let document = try APIDocument.json()
        let access = try AccessPolicy(document: document)
        let api = api(
            publicURL: publicURL,
            consoleURL: consoleURL,
            pagesURL: listener == .console ? consoleURL : nil,
            adminToken: .stored
        )
        let services = api.services
        let console = OperatorConsole(
            api: api,
            services: api.services,
            access: access,
            providerSignIn: ConsoleFederation(federation: FederatedSignIn(api: api))
        )
        if listener == .console {
            let gateway = GatewayMiddleware(
                routes: try RouteTable(document: Data(#"{"paths": {}}"#.utf8), extra: ConsolePaths.routes),
                knownCaller: { head in await console.signedIn(head.headerFields).map { "operator:" + $0.1.name } },
                isSecureOrigin: { services.isSecureOrigin },
                metrics: metrics.isRecording ? metrics : nil,
                tracer: RequestSpans(tracer)
            )
            router.add(middleware: gateway)
            console.register(on: router)
            return GatewayResponder(
                gateway: gateway,
                deviceReads: nil,
                destinations: nil,
                router: router.buildResponder()
            )
        }
        var pages = OAuthPaths.pages.merging(["/openapi.json": ["get"]]) { $1 }
        if listener == .everything { pages.merge(ConsolePaths.routes) { $1 } }
        let routes = try RouteTable(document: document, extra: pages)
        let gateway = GatewayMiddleware(
            routes: routes,
            knownCaller: { head in
                if let token = BearerToken.parse(authorization: head.headerFields[.authorization]) {
                    return await services.bearerHolder(token)
                }
                guard listener == .everything, ConsolePaths.takesForms(head.path ?? "") else { return nil }
                return await console.signedIn(head.headerFields).map { "operator:" + $0.1.name }
            },
            isSecureOrigin: { services.isSecureOrigin },
            servesConsole: listener == .everything,
            metrics: metrics.isRecording ? metrics : nil,
            tracer: RequestSpans(tracer)
        )
        router.add(middleware: gateway)
        router.get("/openapi.json") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: document))
            )
        }
        // Compact JSON: pretty printing costs time on every response.
        let gate = try AccessGate(document: document, policy: access) { access async throws(APIError) in
            try await services.principal(for: access)
        } audit: { operationID, path in
            await services.audit(actor: AuditEventRecord.adminToken, via: .api, action: operationID, target: path)
        }
        try api.registerHandlers(
            on: RouterTransport(router: router, streamed: routes.streamedTemplates),
            configuration: .gangway,
            middlewares: [gate]
        )
        DeviceVerificationPage(api: api).register(on: router)
        if listener == .everything { console.register(on: router) }
        AuthorizationPage(api: api).register(on: router)
        FederatedSignIn(api: api).register(on: router)
        return GatewayResponder(
            gateway: gateway,
            deviceReads: DeviceReadRoute(api: api),
            destinations: DestinationProxy(api: api),
            router: router.buildResponder()
        )
    }

    /// The handlers of every operation, over this server's storage, keys and clock.
    ///
    /// - Parameter adminToken: The admin token the admin handlers accept: the one in the
    ///   database (re-read within the cache lifetime), or a one-time token's (see
    ///   ``seed(_:)``).
    /// - Parameter logger: The handlers' logger; the server's when `nil`.
    func api(
        publicURL: PublicURL,
        consoleURL: PublicURL? = nil,
        pagesURL: PublicURL? = nil,
        adminToken: APIServices.AdminTokenCheck,
        logger: Logger? = nil
    ) -> MobileServicesAPI {
        let logger = logger ?? self.logger
        let services = APIServices(
            storage: storage,
            settings: .init(
                publicURL: publicURL,
                consoleURL: consoleURL,
                pagesURL: pagesURL,
                sessionLifetime: configuration.sessionLifetime,
                trustedProxies: configuration.trustedProxies,
                publicDestinationsOnly: configuration.publicDestinationsOnly,
                keyPublicationLead: configuration.keyPublicationLead
            ),
            passwords: passwords,
            throttle: SignInThrottle(
                storage: storage,
                rules: .init(
                    allowedPerAddress: configuration.allowedSignInFailures,
                    allowedPerUser: configuration.allowedSignInFailuresPerUser
                ),
                now: now
            ),
            keys: keys,
            providers: providers,
            adminToken: adminToken,
            readiness: readiness,
            metrics: metrics,
            setWatch: setWatch,
            tracer: tracer,
            now: now,
            logger: logger
        )
        return MobileServicesAPI(services: services)
    }

    /// Where operators reach the console when it listens on its own address, set once
    /// its port is known.
    private let consoleURL: PublicURL?

    /// Where operators reach the console when it listens on its own address
    /// (``ServerConfiguration/consoleAddress``), with its bound port once it listens;
    /// `nil` when it is under `/console` on the API's address.
    public var consoleAddressURL: String? { consoleURL?.value }
    /// Where devices reach the server, set once the API's port is known: the console on
    /// its own address makes activation links with it too.
    private let apiURL: PublicURL

    /// The HTTP application, ready to run as a service (or under HummingbirdTesting): the
    /// API, and the console unless it listens on its own address
    /// (``ServerConfiguration/consoleAddress``, ``consoleApplication(onListening:)``).
    ///
    /// - Parameter onListening: Called with the bound port once the server listens.
    public func application(
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let publicURL = apiURL
        let fixed = configuration.publicURL != nil
        let host = configuration.host
        return makeApplication(
            responder: try responder(
                publicURL: publicURL,
                consoleURL: consoleURL,
                listener: consoleURL == nil ? .everything : .api
            ),
            host: configuration.host,
            port: configuration.port
        ) { port in
            if !fixed { publicURL.value = "http://\(host):\(port)" }
            await onListening(port)
        }
    }

    /// The console's own application, when it listens apart from the API
    /// (``ServerConfiguration/consoleAddress``); `nil` when it is under `/console` on the
    /// API's address.
    ///
    /// - Parameter onListening: Called with the console's bound port once it listens.
    public func consoleApplication(
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> (any ApplicationProtocol)? {
        guard let address = configuration.consoleAddress, let consoleURL else { return nil }
        return makeApplication(
            responder: try responder(publicURL: apiURL, consoleURL: consoleURL, listener: .console),
            host: address.host,
            port: address.port
        ) { port in
            consoleURL.value = address.url(boundPort: port)
            await onListening(port)
        }
    }

    private func makeApplication(
        responder: GatewayResponder,
        host: String,
        port: Int,
        onListening: @escaping @Sendable (Int) async -> Void
    ) -> Application<GatewayResponder> {
        let headTimeout = TimeAmount.nanoseconds(Int64(configuration.requestHeadTimeout.seconds * 1e9))
        let idleTimeout = TimeAmount.nanoseconds(Int64(configuration.idleTimeout.seconds * 1e9))
        let bodyTimeout = TimeAmount.nanoseconds(Int64(configuration.requestBodyTimeout.seconds * 1e9))
        let metrics = metrics
        let connections = ConnectionCap.Count(
            limit: configuration.maximumConnections,
            perAddress: configuration.maximumConnectionsPerAddress ?? configuration.maximumConnections / 4,
            exempt: configuration.trustedProxies
        ) { method in
            metrics.request(
                route: GatewayMiddleware.connectionCapRoute,
                method: method.rawValue,
                status: 503,
                duration: .zero
            )
        }
        let (requestIDs, logger) = (responder.gateway.requestIDs, logger)
        let unreadable: UnreadableRequest.Answer = { error, peer in
            metrics.request(
                route: GatewayMiddleware.unreadableRoute,
                method: "other",
                status: Int(error.status.code),
                duration: .zero
            )
            let requestID = requestIDs.next()
            logger.info(
                "unreadable request",
                metadata: [
                    "request": "\(requestID)", "status": "\(error.status.code)", "peer": "\(peer?.ipAddress ?? "?")",
                    "reason": "\(error.message)",
                ]
            )
            var (headers, body) = GatewayMiddleware.errorDocument(for: error, requestID: requestID)
            headers[.requestID] = requestID
            return (HTTPResponse(status: error.status, headerFields: headers), body)
        }
        return Application(
            responder: responder,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        ConnectionCap(connections), RequestHeadTimeout(headTimeout), RequestBodyTimeout(bodyTimeout),
                        ClosingResponse(), UnreadableRequest(answer: unreadable),
                    ],
                    idleTimeout: idleTimeout,
                    httpDecoderConfiguration: .init(
                        maxHeaderFieldSize: UnreadableRequest.headLimit,
                        maxHeaderListSize: UnreadableRequest.headLimit
                    )
                )
            ),
            configuration: .init(address: .hostname(host, port: port), serverName: "gangway"),
            onServerRunning: { channel in
                // A crash reporter started as the process ends must not keep the port.
                InheritedFiles.keepFromChildren()
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
    }

    /// What serving takes, in the order a service group starts them: the storage's
    /// connection pool, if it has one, the purge of expired rows, the data sources' reads
    /// and the changes' deliveries, the console's own HTTP server if it listens apart, the
    /// HTTP server, and the drain (``ServerDrain``). A group shuts them down in the
    /// reverse order: the drain marks the server not ready and waits
    /// ``ServerConfiguration/drainDelay``, then the HTTP servers stop taking connections
    /// and answer the requests in flight while the pool still runs.
    ///
    /// - Parameters:
    ///   - onListening: Called with the bound port once the server listens.
    ///   - onConsoleListening: Called with the console's bound port once it listens on its
    ///     own address (``ServerConfiguration/consoleAddress``).
    ///   - onMetricsListening: Called with the metrics listener's bound port once it
    ///     listens (``ServerConfiguration/metricsAddress``).
    public func services(
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onConsoleListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onMetricsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> [any Service] {
        var services: [any Service] = [
            ExpiredRowsPurge(storage: storage, now: now, logger: logger, metrics: metrics),
            DataSourcePulls(read: dataSourceRead()),
            ChangeDeliveries(delivery: changeDelivery()),
        ]
        if let period = configuration.keyRotationPeriod {
            services.append(
                ScheduledKeyRotation(
                    rings: [keys.idTokens, keys.destinationTokens],
                    every: period,
                    lead: configuration.keyPublicationLead,
                    now: now,
                    logger: logger
                )
            )
        }
        // First: shut down last, so every request in flight hears the other processes.
        if let listener = storage.makeNoticeListener(heardSetChange: { [setWatch] in setWatch.written() }) {
            services.insert(listener, at: 0)
        }
        if let pool = storage.makeConnectionPool() { services.insert(pool, at: 0) }
        // Before the HTTP servers: the figures of a drain stay readable until it ends.
        if let address = configuration.metricsAddress {
            services.append(
                MetricsListener.application(
                    metrics,
                    host: address.host,
                    port: address.port,
                    logger: logger,
                    onListening: onMetricsListening
                )
            )
        }
        if let console = try consoleApplication(onListening: onConsoleListening) { services.append(console) }
        services.append(try application(onListening: onListening))
        services.append(
            ServerDrain(readiness: readiness, delay: configuration.drainDelay, waits: setWatch, logger: logger)
        )
        return services
    }

    /// Deletes the rows that are of no use any more now (see ``services(onListening:)``,
    /// which does it every ten minutes while serving); the number deleted.
    @discardableResult
    public func purgeExpired() async throws -> Int {
        try await ExpiredRowsPurge.purge(storage, at: now())
    }

    /// Runs every data source read that is due now (see ``services(onListening:onConsoleListening:)``,
    /// which looks every second while serving), and returns when they have ended: how
    /// each went.
    @discardableResult
    public func pullDueDataSources() async throws -> [DataSourceRun] {
        try await DataSourcePulls.runDue(dataSourceRead())
    }

    /// The reads of data sources, as the API's handlers see the server.
    private func dataSourceRead() -> DataSourceRead {
        let api = api(publicURL: apiURL, consoleURL: consoleURL, adminToken: .stored)
        return DataSourceRead(services: api.services, issuer: { [oauth = api.oauth] in oauth.issuer(of: $0) })
    }

    /// Delivers the devices' changes due now to their backends (see
    /// ``services(onListening:onConsoleListening:)``, which does it every 200 ms while
    /// serving); how many the backends answered.
    @discardableResult
    public func deliverDueChanges() async throws -> Int {
        try await ChangeDeliveries.deliverDue(changeDelivery())
    }

    /// The deliveries of changes, as the API's handlers see the server.
    private func changeDelivery() -> ChangeDelivery {
        let api = api(publicURL: apiURL, consoleURL: consoleURL, adminToken: .stored)
        return ChangeDelivery(services: api.services, issuer: { [oauth = api.oauth] in oauth.issuer(of: $0) })
    }

    /// Serves until SIGINT, SIGTERM or SIGHUP (its terminal closed; not under `nohup`),
    /// then drains (``ServerDrain``), finishes the requests in flight and stops. Requests
    /// still running ``ServerConfiguration/shutdownGrace`` after the signal are cancelled.
    ///
    /// - Parameters:
    ///   - onListening: Called with the bound port once the server listens.
    ///   - onConsoleListening: Called with the console's bound port, when it listens apart.
    ///   - onMetricsListening: Called with the metrics listener's bound port, when there
    ///     is one.
    ///   - alongside: Services that start before the server's and stop after them, such
    ///     as the export of its spans (``TraceExport``), which then sends the last.
    public func run(
        alongside: [any Service] = [],
        onListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onConsoleListening: @escaping @Sendable (Int) async -> Void = { _ in },
        onMetricsListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        var group = ServiceGroupConfiguration(
            services: try alongside
                + services(
                    onListening: onListening,
                    onConsoleListening: onConsoleListening,
                    onMetricsListening: onMetricsListening
                ),
            gracefulShutdownSignals: Self.shutdownSignals,
            logger: logger
        )
        group.maximumGracefulShutdownDuration = configuration.drainDelay + configuration.shutdownGrace
        try await ServiceGroup(configuration: group).run()
        // The stop's last step said too: an operator waiting on a grace period sees it end.
        logger.notice("Stopped")
    }
}

extension MobileServicesServer {
    /// SIGINT and SIGTERM, and SIGHUP (a closed terminal) unless the server was started
    /// to outlive its terminal (`nohup`, which leaves SIGHUP ignored).
    static var shutdownSignals: [UnixSignal] {
        let previous = signal(SIGHUP, SIG_IGN)
        signal(SIGHUP, previous)
        let ignored = unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
        return ignored ? [.sigterm, .sigint] : [.sigterm, .sigint, .sighup]
    }
}

/// The URL devices reach the server at, settable once the bound port is known.
final class PublicURL: Sendable {
    private let storage: Mutex<String>

    init(_ value: String) { storage = Mutex(value) }

    var value: String {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

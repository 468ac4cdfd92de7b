import Crypto
import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import GangwaySystem
import Logging
import OpenAPIRuntime

/// What every handler of the API shares: the server's storage, keys, settings, clock
/// and logger, and the checks any operation makes (who is calling, which app, a storage
/// failure as the API's error).
///
/// Each resource's operations are in a handler of their own (``APIHandler``), which holds
/// this; ``MobileServicesAPI`` hands each operation to its handler.
final class APIServices: Sendable {
    struct Settings: Sendable {
        /// The URL devices reach this server at, as discovery and activation tell them.
        var publicURL: PublicURL
        /// Where operators reach the console (its enrolment links): ``publicURL``, or the
        /// console's own address when it listens apart.
        var consoleURL: PublicURL? = nil
        /// The origin of the pages this instance serves, for their forms' origin check and
        /// their cookies' `Secure`: ``publicURL``, or the console's own address on it.
        var pagesURL: PublicURL? = nil
        var sessionLifetime: Duration = .seconds(12 * 60 * 60)
        /// How often a device's last contact is written, at most.
        var contactResolution: Duration = .seconds(60)
        /// The proxies whose `X-Forwarded-For` sign-in throttling believes.
        var trustedProxies: [AddressRange] = []
        /// Whether destinations must reach public addresses only (see
        /// ``ServerConfiguration/publicDestinationsOnly``).
        var publicDestinationsOnly = false
        /// How long a new signing key is published before it signs
        /// (``ServerConfiguration/keyPublicationLead``).
        var keyPublicationLead: Duration = ServerConfiguration.defaultKeyPublicationLead
    }

    /// Concrete, so the cached reads every request makes are direct calls.
    let storage: ServerStorage
    let settings: Settings
    let passwords: PasswordHasher
    let throttle: SignInThrottle
    let keys: ServerKeys
    /// The server's client of the apps' OpenID Connect providers.
    let providers: IdentityProviderClient
    let adminToken: AdminTokenCheck
    /// Whether the server should be sent requests (`/health/ready`).
    let readiness: ServerReadiness
    /// The operator's figures (``ServerMetrics``).
    let metrics: ServerMetrics
    /// Where the server's spans go (``ServerTracer``).
    let tracer: ServerTracer
    let now: @Sendable () -> Date
    let logger: Logger
    /// The devices waiting for an entity set to change: the server's one watch, which
    /// every instance of the API shares and the other processes' notices wake.
    let setWatch: SetWatch
    /// The server key derived for the forms' tokens (``formGuard``), once.
    private let formTokenKey: SymmetricKey

    /// A class, not a struct: every request's handlers share this one instance, where a
    /// value of this size was copied (and its references retained) at each call.
    init(
        storage: ServerStorage,
        settings: Settings,
        passwords: PasswordHasher,
        throttle: SignInThrottle,
        keys: ServerKeys,
        providers: IdentityProviderClient,
        adminToken: AdminTokenCheck,
        readiness: ServerReadiness,
        metrics: ServerMetrics,
        setWatch: SetWatch,
        tracer: ServerTracer,
        now: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.storage = storage
        self.settings = settings
        self.passwords = passwords
        self.throttle = throttle
        self.keys = keys
        self.providers = providers
        self.adminToken = adminToken
        self.readiness = readiness
        self.metrics = metrics
        self.tracer = tracer
        self.now = now
        self.logger = logger
        self.setWatch = setWatch
        formTokenKey = keys.server.authenticationKey(purpose: "form-token")
    }

    // MARK: Shared

    func configuration(of app: AppRecord) -> Components.Schemas.AppConfiguration {
        .init(
            serverURL: settings.publicURL.value,
            appID: app.id,
            appName: app.name,
            authType: .init(app.authentication.type)
        )
    }

    func app(_ id: String) async throws(APIError) -> AppRecord {
        try Validation.identifierOrNotFound(id)
        guard let app = try await perform({ try await storage.app(id: id) }) else { throw .appNotFound }
        return app
    }

    /// Runs a storage call, turning its failure into the API's error.
    func perform<T>(_ body: () async throws -> T) async throws(APIError) -> T {
        do {
            return try await body()
        } catch {
            let error = error as? StorageError ?? StorageError(.unavailable, String(describing: type(of: error)))
            if error.code == .unavailable || error.code == .corrupt {
                logger.error(
                    "storage failed",
                    metadata: ["error": "\(error)", "request": "\(RequestInfo.current.requestID)"]
                )
            }
            throw .storage(error)
        }
    }

    /// Who is calling: the app, the session of the request's bearer token, and the
    /// device registration, refusing a registration an admin locked or wiped.
    ///
    /// - Parameters:
    ///   - allowsReplacingWiped: A session signed in after the wipe may reach the
    ///     handler, which registers the device anew.
    ///   - requiresRegistration: The session's device must be registered: the app's
    ///     data and log uploads go only to devices the admin can see, lock and wipe.
    func authenticate(
        appID: String,
        checksDevice: Bool = true,
        allowsReplacingWiped: Bool = false,
        requiresRegistration: Bool = false
    ) async throws(APIError) -> Caller {
        // The token before the app, as the access gate does for every routed request: a
        // caller without a session learns nothing of which apps exist, whichever path
        // (the router or ``DeviceReadRoute``) answers it.
        guard let token = RequestInfo.current.bearerToken else { throw .unauthorized }
        let hash = BearerToken.hash(token)
        guard let session = try await perform({ try await storage.session(tokenHash: hash) }), !session.revoked
        else { throw .unauthorized }
        let app = try await app(appID)
        guard session.appID == app.id else { throw .unauthorized }
        guard session.expiresAt > now() else { throw .tokenExpired }
        let device = try await perform {
            try await storage.device(appID: app.id, username: session.username, deviceID: session.deviceID)
        }
        if requiresRegistration, device == nil { throw .deviceNotRegistered }
        if checksDevice, let device, device.status != .active {
            let signedInAfterChange = session.createdAt > device.statusChangedAt
            switch device.status {
            case .wiped where allowsReplacingWiped && signedInAfterChange: break
            case .wiped:
                // The device hears of its wipe now, and erases the user's data: the first
                // contact after the wipe is what the admin sees as the wipe carried out.
                if (device.lastContactAt ?? .distantPast) <= device.statusChangedAt {
                    try? await storage.touchDevice(registrationID: device.registrationID, at: now())
                }
                throw .registrationWiped
            default: throw .registrationLocked
            }
        }
        return Caller(app: app, session: session, device: device, tokenHash: hash)
    }

    struct Caller {
        var app: AppRecord
        var session: SessionRecord
        var device: DeviceRecord?
        var tokenHash: Data
    }

    /// Who the request's bearer token makes its sender, looked up as an operation of
    /// `access` needs: as the admin token for one that needs a role, as a session's
    /// (not revoked) for a device's.
    func principal(for access: OperationAccess?) async throws(APIError) -> Principal {
        guard let token = RequestInfo.current.bearerToken else { return .anonymous }
        switch access {
        case .anyone, nil:
            return .unknownToken
        case .device:
            let session = try await perform { try await storage.session(tokenHash: BearerToken.hash(token)) }
            return session.map { $0.revoked ? .unknownToken : .session } ?? .unknownToken
        case .role:
            return try await isAdminToken(token) ? .adminToken : .unknownToken
        }
    }

    /// Whether `token` is the admin token in force (compared as digests, in constant time).
    func isAdminToken(_ token: String) async throws(APIError) -> Bool {
        let hash = BearerToken.hash(token)
        let expected = try await adminTokenHash()
        return hash.count == expected.count && zip(hash, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
    }

    /// ``bearerHolder(_:)``'s name for the admin token's holder.
    static let adminHolder = "admin"

    /// Who holds `token`: `admin` for the admin token, `user:` and the user's name for a
    /// live session's, `nil` for any other. A known holder may send a body larger than
    /// ``GatewayMiddleware/unauthenticatedBodySize``, a few at a time. A wrong token costs
    /// a cached lookup, and a denial (the route's own check says why).
    func bearerHolder(_ token: String) async -> String? {
        let hash = BearerToken.hash(token)
        if (try? await isAdminToken(token)) == true { return Self.adminHolder }
        guard let session = try? await storage.session(tokenHash: hash), !session.revoked, session.expiresAt > now()
        else { return nil }
        return "user:" + session.username
    }

    /// The hash of the admin token in force: read through the cache, so a token renewed
    /// by another process (`gangway serve --new-admin-token`) replaces the old one here
    /// within the cache lifetime.
    func adminTokenHash() async throws(APIError) -> Data {
        switch adminToken {
        case .hash(let hash):
            return hash
        case .stored:
            guard let hash = try await perform({ try await storage.secret(named: AdminToken.secretName) }) else {
                throw .storage(StorageError(.corrupt, "the admin token's hash is missing"))
            }
            return hash
        }
    }

    /// Which admin token the admin handlers accept.
    enum AdminTokenCheck: Sendable {
        /// The one whose hash the database holds now.
        case stored
        /// This one only (a seed's one-time token).
        case hash(Data)
    }

    // MARK: Shared by pages and handlers

    /// Appends an event to the audit, at the request's client address, with what the
    /// handler noted (``AuditNote``): what it changed, and what it created when the
    /// request's path does not name it. The action was
    /// done already: a failure to record it is logged, as an error.
    func audit(actor: String, via: AuditEventRecord.Channel, action: String, target: String?) async {
        let event = AuditEventRecord(
            at: now(),
            actor: actor,
            via: via,
            action: action,
            target: RequestInfo.current.auditNote?.target ?? target,
            address: RequestInfo.current.clientAddress(trusting: settings.trustedProxies),
            detail: RequestInfo.current.auditNote?.detail
        )
        do {
            try await storage.appendAuditEvent(event)
        } catch {
            logger.error(
                "an action could not be recorded in the audit",
                metadata: ["action": "\(action)", "error": "\(error.code)"]
            )
        }
    }

    /// Adds to the overview's counts (``ActivityKind``). A count that cannot be written is
    /// logged, and fails nothing.
    func count(_ counts: [ActivityKind: Int], appID: String) async {
        do {
            try await storage.countActivity(counts, appID: appID, at: now())
        } catch {
            logger.warning("activity not counted", metadata: ["app": "\(appID)", "error": "\(error)"])
        }
    }

    /// The console's page at `path`, at the console's own address when it has one.
    func consoleURL(_ path: String) -> String {
        (settings.consoleURL ?? settings.publicURL).value + path
    }

    /// Whether the server's pages are reached over HTTPS: their cookies are then `Secure`.
    var isSecureOrigin: Bool { (settings.pagesURL ?? settings.publicURL).value.hasPrefix("https://") }

    /// Anti-forgery for the server's forms.
    var formGuard: FormGuard {
        FormGuard(
            key: formTokenKey,
            publicURL: (settings.pagesURL ?? settings.publicURL).value
        )
    }

    static func randomBytes(_ count: Int) -> Data {
        precondition(count % 8 == 0 && count <= 64)
        return SymmetricKey(size: .init(bitCount: count * 8)).withUnsafeBytes { Data($0) }
    }
}

extension Validation {
    /// A path ID that cannot name anything is a 404, like an unknown one.
    static func identifierOrNotFound(_ value: String) throws(APIError) {
        do {
            try identifier(value, "appID")
        } catch {
            throw .appNotFound
        }
    }
}

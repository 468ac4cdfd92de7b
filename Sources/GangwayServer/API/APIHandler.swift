import Foundation
import GangwayServerStorage
import Logging

/// The handler of one resource's operations (users, devices, apps, the app's data…):
/// a value over the ``APIServices`` every handler shares, made for nothing, so a handler
/// that needs another's helper makes one.
///
/// A handler returns only the success case of its operation; every failure is an
/// ``APIError`` thrown to ``GatewayMiddleware``, which renders the one error document
/// the API uses. Who may call an operation is decided before its handler runs
/// (``AccessPolicy``), by the HTTP gate or by the console.
protocol APIHandler: Sendable {
    var services: APIServices { get }
    init(services: APIServices)
}

extension APIHandler {
    var storage: ServerStorage { services.storage }
    var settings: APIServices.Settings { services.settings }
    var passwords: PasswordHasher { services.passwords }
    var throttle: SignInThrottle { services.throttle }
    var keys: ServerKeys { services.keys }
    var providers: IdentityProviderClient { services.providers }
    var now: @Sendable () -> Date { services.now }
    var logger: Logger { services.logger }

    /// Runs a storage call, turning its failure into the API's error
    /// (``APIServices/perform(_:)``).
    func perform<T>(_ body: () async throws -> T) async throws(APIError) -> T {
        try await services.perform(body)
    }

    /// The app of a path's ID; an ID that cannot name one is a 404, like an unknown one.
    func app(_ id: String) async throws(APIError) -> AppRecord {
        try await services.app(id)
    }

    /// Who is calling (``APIServices/authenticate(appID:checksDevice:allowsReplacingWiped:requiresRegistration:)``).
    func authenticate(
        appID: String,
        checksDevice: Bool = true,
        allowsReplacingWiped: Bool = false,
        requiresRegistration: Bool = false
    ) async throws(APIError) -> APIServices.Caller {
        try await services.authenticate(
            appID: appID,
            checksDevice: checksDevice,
            allowsReplacingWiped: allowsReplacingWiped,
            requiresRegistration: requiresRegistration
        )
    }

    /// Appends an event to the audit (``APIServices/audit(actor:via:action:target:)``).
    func audit(actor: String, via: AuditEventRecord.Channel, action: String, target: String?) async {
        await services.audit(actor: actor, via: via, action: action, target: target)
    }

    /// Adds to the overview's counts (``APIServices/count(_:appID:)``).
    func count(_ counts: [ActivityKind: Int], appID: String) async {
        await services.count(counts, appID: appID)
    }
}

extension APIHandler {
    typealias Caller = APIServices.Caller

    /// `count` random bytes (``APIServices/randomBytes(_:)``).
    static func randomBytes(_ count: Int) -> Data { APIServices.randomBytes(count) }

    // The handlers whose helpers others use: made for nothing, over the same services.
    var sessions: SessionsHandler { .init(services: services) }
    var devices: DevicesHandler { .init(services: services) }
    var users: UsersHandler { .init(services: services) }
    var operators: OperatorsHandler { .init(services: services) }
    var identityLinks: IdentityLinksHandler { .init(services: services) }
    var oauth: OAuthHandler { .init(services: services) }
    var federation: FederationHandler { .init(services: services) }
}

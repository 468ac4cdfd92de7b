import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayProtocol
import GangwayScreens
import GangwaySystem
import GangwayWireClient
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The device's client of the mobile-services API, generated from the same OpenAPI
/// document the server is generated from, so the two cannot drift apart.
///
/// HTTP goes through a `ClientTransport` (the generator's small HTTP client protocol):
/// ``GangwayClient/ServiceTransport/standard(timeout:)`` (URLSession on Apple platforms, AsyncHTTPClient on
/// Linux) unless given another, such as a test's.
/// Every failure is a ``ServiceError``; the server's stable code and message ride along.
///
/// ```swift
/// let client = MobileServicesClient(serverURL: configuration.serverURL)
/// let session = try await client.signIn(appID: "checks", username: "alice",
///                                       password: password, deviceID: device.deviceID)
/// let settings = try await client.settings(appID: "checks", token: session.token)
/// ```
public struct MobileServicesClient: Sendable {
    /// Where the server answers.
    public let serverURL: URL
    let transport: any ClientTransport
    /// The wall clock an answer's lifetime (a token's, a device code's) starts from: the
    /// one the app's flows read (``MobileServices``'s).
    let now: @Sendable () -> Date

    public init(
        serverURL: URL,
        transport: (any ClientTransport)? = nil,
        now: @escaping @Sendable () -> Date = WallClock.now
    ) {
        self.serverURL = serverURL
        self.transport = transport ?? ServiceTransport.standard()
        self.now = now
    }

    func client(token: SessionToken? = nil) -> Client {
        Client(
            serverURL: serverURL,
            configuration: .gangway,
            transport: transport,
            middlewares: [ServiceCallMiddleware(token: token?.value)]
        )
    }

    // MARK: Public routes

    /// The app set up for a work email address's domain.
    public func discover(email: String) async throws(ServiceError) -> AppConfiguration {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client().discoverApp(query: .init(email: email))
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json }
            guard let url = try? WebURL.parse(body.serverURL) else { throw .invalidResponse(status: 200) }
            return AppConfiguration(
                serverURL: url,
                appID: body.appID,
                appName: body.appName,
                authType: body.authType
            )
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The PEM of the public key the server signs activation payloads with now.
    public func activationKeyPEM() async throws(ServiceError) -> String {
        try await activationKey().pem
    }

    /// The public key the server signs activation payloads with now, and the chain that
    /// leads to it from the server's first key.
    /// - Throws: ``ServiceError/invalidResponse`` when the key or its chain cannot be read.
    public func activationKey() async throws(ServiceError) -> ServerActivationKey {
        let output = try await ServiceCall.run(at: serverURL) { try await client().getActivationKey() }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json }
            guard let key = try? ServerActivationKey(pem: body.publicKeyPEM, chain: body.chain) else {
                throw .invalidResponse
            }
            return key
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Whether `version` of the app may still be used.
    public func checkVersion(appID: String, version: String) async throws(ServiceError) -> VersionStatus {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client().checkVersion(path: .init(appID: appID), query: .init(version: version))
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json }
            return VersionStatus(
                isActive: body.active,
                minimumVersion: body.minimumVersion,
                message: body.message,
                authType: body.authType
            )
        default: throw ServiceCall.unexpected(output)
        }
    }

    // MARK: Sessions

    /// Signs in with user name and password on this device.
    ///
    /// - Parameter deviceCookie: The cookie an earlier sign-in of this user on this device
    ///   returned (``ServerSession/deviceCookie``): with it, guessing from elsewhere does
    ///   not slow this sign-in.
    /// - Throws: ``ServiceError/invalidCredentials`` with the server's message,
    ///   ``ServiceError/throttled`` or ``ServiceError/busy`` with ``ServiceError/retryAfter``,
    ///   or another ``ServiceError``.
    public func signIn(
        appID: String,
        username: String,
        password: Secret,
        deviceID: String,
        deviceCookie: String? = nil
    ) async throws(ServiceError) -> ServerSession {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client().signIn(
                path: .init(appID: appID),
                body: .json(
                    .init(username: username, password: password.value, deviceID: deviceID, deviceCookie: deviceCookie)
                )
            )
        }
        switch output {
        case .created(let created):
            let body = try ServiceCall.decode { try created.body.json }
            return ServerSession(
                token: SessionToken(body.token),
                user: ServerUser(id: body.user.id, displayName: body.user.displayName),
                expiresAt: body.expiresAt,
                deviceCookie: body.deviceCookie
            )
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Revokes the session's token on the server.
    public func signOut(appID: String, token: SessionToken) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client(token: token).signOut(path: .init(appID: appID))
        }
        switch output {
        case .noContent: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    // MARK: Signed-in routes

    /// The app's settings exchange.
    public func settings(appID: String, token: SessionToken) async throws(ServiceError) -> ServerSettings {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client(token: token).getSettings(path: .init(appID: appID))
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json.mobileservices.settingsExchange }
            var settings = try ServerSettings(body)
            guard let key = Data(base64URLEncoded: body.changeSealingKey), key.count == 65 else {
                throw .invalidResponse(status: 200)
            }
            settings.changeSealingKey = key
            return settings
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The entities of one of the app's entity sets, ordered by ID (read-only for devices).
    public func appData(appID: String, entitySet: String, token: SessionToken) async throws(ServiceError) -> [AppEntity]
    {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client(token: token).getAppData(path: .init(appID: appID, entitySet: entitySet))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json.entities.map(AppEntity.init) }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// One page of what changed in an entity set since `cursor` (`nil`: the set from the
    /// start). A cursor the server no longer serves is refused with the server code
    /// `CURSOR_EXPIRED` (HTTP 410): read the set again from the start.
    /// - Parameters:
    ///   - limit: At most this many entities and removals; `nil`: the server's default
    ///     (``GangwayProtocol/APIDefaults/syncPage``).
    ///   - wait: When nothing changed since `cursor`, how many seconds the server waits
    ///     for a change before answering (``GangwayProtocol/APILimits/syncWait``): the
    ///     answer comes at the change. `nil`: at once.
    public func appDataChanges(
        appID: String,
        entitySet: String,
        cursor: String?,
        limit: Int? = nil,
        waitingUpTo wait: Int? = nil,
        token: SessionToken
    ) async throws(ServiceError) -> AppDataChanges {
        // Not through the generated client: a page of thousands of entities is read by a
        // scanner, not `JSONDecoder` (see `SyncPageCall`).
        try await SyncPageCall.run(
            serverURL: serverURL,
            transport: transport,
            token: token.value,
            appID: appID,
            entitySet: entitySet,
            cursor: cursor,
            limit: limit,
            wait: wait
        )
    }

    /// Registers the device for the signed-in user, or refreshes its registration.
    /// - Parameter changeKey: The user's key for signing offline changes on this device,
    ///   registered with the device; `nil` keeps the one registered.
    public func registerDevice(
        appID: String,
        token: SessionToken,
        device: DeviceIdentity,
        changeKey: ChangeVerifyingKey? = nil
    ) async throws(ServiceError) -> DeviceRegistration {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client(token: token).registerDevice(
                path: .init(appID: appID, deviceID: device.deviceID),
                body: .json(
                    .init(
                        deviceName: device.deviceName,
                        platform: device.platform,
                        appVersion: device.appVersion,
                        changeKey: changeKey?.x963Representation.base64URLEncoded
                    )
                )
            )
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json }
            var recoveryKey: RecoveryKey?
            if let text = body.recoverySecret {
                guard let secret = Data(base64Encoded: text), secret.count >= 32 else {
                    throw .invalidResponse(status: 200)
                }
                recoveryKey = RecoveryKey(secret)
            }
            return DeviceRegistration(
                registrationID: body.registrationID,
                deviceID: body.deviceID,
                recoveryKey: recoveryKey,
                registeredAt: body.registeredAt
            )
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Uploads log entries.
    /// - Returns: How many entries the server accepted.
    public func uploadLogs(
        appID: String,
        token: SessionToken,
        entries: [LogRecord]
    ) async throws(ServiceError) -> Int {
        let body = Components.Schemas.LogUpload(
            entries: entries.map { entry in
                Components.Schemas.LogEntry(
                    time: entry.time,
                    level: .init(rawValue: entry.level.rawValue) ?? .info,
                    message: entry.message,
                    source: entry.source
                )
            }
        )
        let output = try await ServiceCall.run(at: serverURL) {
            try await client(token: token).uploadLogs(path: .init(appID: appID), body: .json(body))
        }
        switch output {
        case .accepted(let accepted): return try ServiceCall.decode { try accepted.body.json.accepted }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Sends changes from the device's outbox, sealed to the server, for the server to end
    /// each once. Any user's session of the device may carry any of its users' changes.
    ///
    /// - Returns: The server's answer to each change, paired with it, in order.
    public func uploadSealedChanges(
        appID: String,
        token: SessionToken,
        changes: [PendingChange]
    ) async throws(ServiceError) -> [(change: PendingChange, answer: ChangeAnswer)] {
        let body = Components.Schemas.SealedChangeUpload(sealed: changes.map(\.sealed.base64URLEncoded))
        let output = try await ServiceCall.run(at: serverURL) {
            try await client(token: token).uploadSealedChanges(path: .init(appID: appID), body: .json(body))
        }
        switch output {
        case .ok(let ok):
            let results = try ServiceCall.decode { try ok.body.json.results }
            guard results.count == changes.count else { throw .invalidResponse(status: 200) }
            var answers: [(change: PendingChange, answer: ChangeAnswer)] = []
            for (change, wire) in zip(changes, results) {
                answers.append((change, try Self.answer(wire, to: change)))
            }
            return answers
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The server's result, read into the offline types; a result naming another change
    /// than the one sent at its place is not the server's answer to it.
    private static func answer(
        _ wire: Components.Schemas.ChangeResult,
        to change: PendingChange
    ) throws(ServiceError) -> ChangeAnswer {
        if let id = wire.changeID, UUID(uuidString: id) != change.changeID { throw .invalidResponse(status: 200) }
        let entity = wire.entity.map {
            EntityState(fields: $0.fields.additionalProperties, version: $0.version)
        }
        return ChangeAnswer(result: try ChangeResult(wire, changeID: change.changeID), entity: entity)
    }
}

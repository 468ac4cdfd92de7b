import Foundation
import GangwayClient
import GangwayPolicy
import GangwayProtocol
import GangwayWireClient
import OpenAPIRuntime

/// An operator's client of the server's admin API, generated from the same document as
/// the server, behind the admin token.
///
/// ```swift
/// let admin = AdminClient(serverURL: url, adminToken: token)
/// try await admin.createApp(id: "checks", name: "Aircraft checks", emailDomains: ["airline.example"])
/// try await admin.createUser("alice", password: password, displayName: "Alice")
/// var policy = PasscodePolicyChange()
/// policy[.minimumLength] = .number(12)
/// try await admin.updateApp("checks", AppChange(passcodePolicy: policy))
/// try await admin.setDeviceStatus(.wiped, app: "checks", registration: registrationID)
/// ```
///
/// Before its first call sends the token, the client has the server prove it holds the
/// token's hash (`POST /admin/proof`); a process that took a stopped server's port gets
/// no token, and the call fails with ``ServiceError/serverNotProven``.
///
/// Every failure is a ``ServiceError`` with the server's stable code and message; the
/// token and passwords never appear in one.
public struct AdminClient: Sendable {
    /// Where the server answers.
    public let serverURL: URL
    private let adminToken: String
    private let transport: any ClientTransport
    private let serverCheck: AdminServerCheck

    public init(serverURL: URL, adminToken: String, transport: (any ClientTransport)? = nil) {
        self.serverURL = serverURL
        self.adminToken = adminToken
        self.transport = transport ?? ServiceTransport.standard()
        serverCheck = AdminServerCheck(token: adminToken)
    }

    /// The generated client, behind the admin token (for this type's extensions). The
    /// token goes out only once the server proved it holds its hash
    /// (``AdminServerCheck``).
    var client: Client {
        Client(
            serverURL: serverURL,
            configuration: .gangway,
            transport: transport,
            // The check sits after the token is set and before the transport: its proof
            // request is its own, without the token, and the call goes out only after.
            middlewares: [ServiceCallMiddleware(token: adminToken), serverCheck]
        )
    }

    /// Creates an app with the server's default settings.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 409 when the ID or a domain is taken.
    public func createApp(id: String, name: String, emailDomains: [String]) async throws(ServiceError) {
        let body = Components.Schemas.AppCreate(appID: id, name: name, emailDomains: emailDomains)
        let output = try await ServiceCall.run(at: serverURL) { try await client.createApp(body: .json(body)) }
        switch output {
        case .created: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Creates a user who can sign in with `password`.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 409 when the name is taken.
    public func createUser(_ username: String, password: Secret, displayName: String? = nil) async throws(ServiceError)
    {
        let body = Components.Schemas.UserCreate(username: username, password: password.value, displayName: displayName)
        let output = try await ServiceCall.run(at: serverURL) { try await client.createUser(body: .json(body)) }
        switch output {
        case .created: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    // MARK: Apps

    /// Every app on the server.
    public func apps() async throws(ServiceError) -> [ManagedApp] {
        let output = try await ServiceCall.run(at: serverURL) { try await client.listApps() }
        switch output {
        case .ok(let ok):
            var apps: [ManagedApp] = []
            for app in try ServiceCall.decode({ try ok.body.json }) { apps.append(try ManagedApp(app)) }
            return apps
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// One app.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` for an unknown ID.
    public func app(_ id: String) async throws(ServiceError) -> ManagedApp {
        let output = try await ServiceCall.run(at: serverURL) { try await client.getApp(path: .init(appID: id)) }
        switch output {
        case .ok(let ok): return try ManagedApp(ServiceCall.decode { try ok.body.json })
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Changes what `change` sets; devices see it at their next settings exchange.
    /// - Returns: The app as it is now.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 400 for a value
    ///   out of range, 409 for an email domain another app has.
    @discardableResult
    public func updateApp(_ id: String, _ change: AppChange) async throws(ServiceError) -> ManagedApp {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.updateApp(path: .init(appID: id), body: .json(change.update))
        }
        switch output {
        case .ok(let ok): return try ManagedApp(ServiceCall.decode { try ok.body.json })
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The newest log entries the app's devices uploaded, newest first.
    ///
    /// - Parameters:
    ///   - user: Only this user's entries.
    ///   - level: Only entries of this level (`trace` … `critical`) and above.
    ///   - since: Only entries logged at or after this time; `until`, before it.
    public func logs(
        app id: String,
        limit: Int? = nil,
        user: String? = nil,
        level: String? = nil,
        since: Date? = nil,
        until: Date? = nil
    ) async throws(ServiceError) -> [UploadedLog] {
        let query = Operations.ListLogs.Input.Query(
            limit: limit,
            user: user,
            level: level.flatMap(Operations.ListLogs.Input.Query.LevelPayload.init(rawValue:)),
            since: since,
            until: until
        )
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listLogs(path: .init(appID: id), query: query)
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }.map(UploadedLog.init)
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// How the app's people sign in.
    public func authentication(app id: String) async throws(ServiceError) -> ManagedAuthentication {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.getAppAuthentication(path: .init(appID: id))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Replaces how the app's people sign in; the client secret, when given, is sealed by
    /// the server and never shown again.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 400 for an issuer
    ///   that is not an `https` URL (`http` on loopback only), or a value out of range.
    @discardableResult
    public func setAuthentication(
        _ change: AuthenticationChange,
        app id: String
    ) async throws(ServiceError) -> ManagedAuthentication {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.setAppAuthentication(path: .init(appID: id), body: .json(change.wire))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The newest changes devices uploaded for the app (at most `limit`, newest first),
    /// only those that ended as `outcome` when given.
    public func changes(
        app id: String,
        outcome: ChangeResult.Outcome? = nil,
        limit: Int? = nil
    ) async throws(ServiceError) -> [ManagedChange] {
        let filter = outcome.flatMap { Operations.ListChanges.Input.Query.OutcomePayload(rawValue: $0.rawValue) }
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listChanges(path: .init(appID: id), query: .init(limit: limit, outcome: filter))
        }
        switch output {
        case .ok(let ok):
            let list = try ServiceCall.decode { try ok.body.json }
            var changes: [ManagedChange] = []
            for wire in list { changes.append(try ManagedChange(wire)) }
            return changes
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// A signed activation link for the app (`gangway://activate?…`), the text a QR code
    /// carries, that activates for `validDays` (the server's 7 when `nil`).
    public func activationLink(app id: String, validDays: Int? = nil) async throws(ServiceError) -> String {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.createActivation(path: .init(appID: id), query: .init(validDays: validDays))
        }
        switch output {
        case .created(let created): return try ServiceCall.decode { try created.body.json.link }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The activation link as a QR code PNG, drawn by the server.
    /// - Throws: ``ServiceError``; status 503 (`QR_UNAVAILABLE`) when the link is longer
    ///   than a QR code holds.
    public func activationQRCode(app id: String, validDays: Int? = nil) async throws(ServiceError) -> Data {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.getActivationQRCode(path: .init(appID: id), query: .init(validDays: validDays))
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.png }
            return try await ServiceCall.run(at: serverURL) { try await Data(collecting: body, upTo: 4 << 20) }
        default: throw ServiceCall.unexpected(output)
        }
    }

    // MARK: Devices

    /// The app's device registrations.
    ///
    /// Without `user`, `status`, `after` or `limit`: every registration, oldest first.
    /// With any: a page ordered by user and registration ID, of those whose user's name
    /// starts with `user`, in `status`, after the registration `after`.
    public func devices(
        app id: String,
        user: String? = nil,
        status: ManagedDevice.Status? = nil,
        after: String? = nil,
        limit: Int? = nil
    ) async throws(ServiceError) -> [ManagedDevice] {
        let query = Operations.ListDevices.Input.Query(
            user: user,
            status: status,
            after: after,
            limit: limit
        )
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listDevices(path: .init(appID: id), query: query)
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Locks, wipes or reactivates a registration; the device learns it at its next call.
    @discardableResult
    public func setDeviceStatus(
        _ status: ManagedDevice.Status,
        app id: String,
        registration registrationID: String
    ) async throws(ServiceError) -> ManagedDevice {
        let body = Components.Schemas.DeviceUpdate(status: status)
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.updateDevice(path: .init(appID: id, registrationID: registrationID), body: .json(body))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    // MARK: App data

    /// A page of one of the app's entity sets, ordered by ID: the entities whose IDs come
    /// after `after` (from the first when `nil`), at most `limit` (the server's default,
    /// ``GangwayProtocol/APIDefaults/listLimit``, when `nil`), and whether more follow.
    public func entities(
        app id: String,
        entitySet: String,
        after: String? = nil,
        limit: Int? = nil
    ) async throws(ServiceError) -> (entities: [AppEntity], more: Bool) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listAppData(
                path: .init(appID: id, entitySet: entitySet),
                query: .init(after: after, limit: limit)
            )
        }
        switch output {
        case .ok(let ok):
            return try ServiceCall.decode {
                let list = try ok.body.json
                return (list.entities.map(AppEntity.init), list.more ?? false)
            }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Creates an entity, or replaces all its fields; devices read it at their next call.
    @discardableResult
    public func putEntity(
        _ entityID: String,
        fields: [String: String],
        app id: String,
        entitySet: String
    ) async throws(ServiceError) -> AppEntity {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.putEntity(
                path: .init(appID: id, entitySet: entitySet, entityID: entityID),
                body: .json(.init(fields: .init(additionalProperties: fields)))
            )
        }
        switch output {
        case .ok(let ok): return try AppEntity(ServiceCall.decode { try ok.body.json })
        case .created(let created): return try AppEntity(ServiceCall.decode { try created.body.json })
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Writes a batch of entities to `entitySet` from NDJSON `lines` (one
    /// `{"id": …, "fields": {…}}` or `{"id": …, "remove": true}` a line), streamed as they
    /// come, once by `batchID`: the same lines sent again under the same ID apply only
    /// what was not done yet.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 409 and
    ///   `INGEST_BATCH_CHANGED` when the ID was sent with other lines.
    public func ingest(
        _ lines: HTTPBody,
        into entitySet: String,
        app id: String,
        batch batchID: String
    ) async throws(ServiceError) -> IngestReport {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.ingestAppData(
                path: .init(appID: id, entitySet: entitySet, batchID: batchID),
                body: .applicationXNdjson(lines)
            )
        }
        switch output {
        case .ok(let ok): return IngestReport(try ServiceCall.decode { try ok.body.json })
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Removes an entity.
    public func deleteEntity(_ entityID: String, app id: String, entitySet: String) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.deleteEntity(path: .init(appID: id, entitySet: entitySet, entityID: entityID))
        }
        switch output {
        case .noContent: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The schemas of the app's entity sets that have one, by set.
    public func entitySchemas(app id: String) async throws(ServiceError) -> [String: EntitySchema] {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listEntitySchemas(path: .init(appID: id))
        }
        switch output {
        case .ok(let ok):
            let wire = try ServiceCall.decode { try ok.body.json.entitySets.additionalProperties }
            var schemas: [String: EntitySchema] = [:]
            for (entitySet, schema) in wire { schemas[entitySet] = try Self.schema(schema, status: 200) }
            return schemas
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// An entity set's schema; `nil` when it has none.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` for an unknown app.
    public func entitySchema(app id: String, entitySet: String) async throws(ServiceError) -> EntitySchema? {
        let output: Operations.GetEntitySchema.Output
        do throws(ServiceError) {
            output = try await ServiceCall.run(at: serverURL) {
                try await client.getEntitySchema(path: .init(appID: id, entitySet: entitySet))
            }
        } catch {
            guard error.serverCode == ErrorCode.schemaNotFound.rawValue else { throw error }
            return nil
        }
        switch output {
        case .ok(let ok): return try Self.schema(try ServiceCall.decode { try ok.body.json }, status: 200)
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Gives an entity set `schema`, or changes it: refused with the server's reason when
    /// entities of the set do not fit it (``ServiceError/refused``, `SCHEMA_CHANGE_REFUSED`).
    @discardableResult
    public func putEntitySchema(
        _ schema: EntitySchema,
        app id: String,
        entitySet: String
    ) async throws(ServiceError) -> EntitySchema {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.putEntitySchema(
                path: .init(appID: id, entitySet: entitySet),
                body: .json(.init(schema))
            )
        }
        switch output {
        case .ok(let ok): return try Self.schema(try ServiceCall.decode { try ok.body.json }, status: 200)
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Takes an entity set's schema away: it takes any fields, as text, again.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` when the set has none.
    public func deleteEntitySchema(app id: String, entitySet: String) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.deleteEntitySchema(path: .init(appID: id, entitySet: entitySet))
        }
        switch output {
        case .noContent: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    private static func schema(
        _ wire: Components.Schemas.EntitySchema,
        status: Int
    ) throws(ServiceError) -> EntitySchema {
        do {
            return try EntitySchema(wire)
        } catch {
            throw .invalidResponse(status: status)
        }
    }

    // MARK: Destinations

    /// The app's destinations, by name, with the requests forwarded to each in the last
    /// 7 days.
    public func destinations(app id: String) async throws(ServiceError) -> [ManagedDestination] {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listDestinations(path: .init(appID: id))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Adds a destination, or changes the one of that name: the person's identity goes to
    /// it, or, with `credential`, that value in the header `credentialHeader` (kept when
    /// `credential` is `nil` and the destination has one).
    /// - Returns: The destination, and whether it is new.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 400 for a URL
    ///   that is not `https` (`http` only on loopback) or a header the server sets itself.
    @discardableResult
    public func putDestination(
        _ name: String,
        url: String,
        credentialHeader: String? = nil,
        credential: String? = nil,
        app id: String
    ) async throws(ServiceError) -> (destination: ManagedDestination, isNew: Bool) {
        let fixed = credentialHeader != nil || credential != nil
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.putDestination(
                path: .init(appID: id, name: name),
                body: .json(
                    .init(
                        url: url,
                        authentication: fixed ? .credential : .identity,
                        credentialHeader: credentialHeader,
                        credential: credential
                    )
                )
            )
        }
        switch output {
        case .ok(let ok): return (try ServiceCall.decode { try ok.body.json }, false)
        case .created(let created): return (try ServiceCall.decode { try created.body.json }, true)
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Removes a destination: devices reach it no more.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` when the app has none of that name.
    public func removeDestination(_ name: String, app id: String) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.removeDestination(path: .init(appID: id, name: name))
        }
        switch output {
        case .noContent: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    // MARK: Users

    /// Every user.
    ///
    /// Without `prefix`, `search`, `after` or `limit`: every user. With any: a page by name
    /// of those whose name starts with `prefix` and whose name or display name holds
    /// `search` (any case), after the name `after`.
    public func users(
        prefix: String? = nil,
        search: String? = nil,
        after: String? = nil,
        limit: Int? = nil
    ) async throws(ServiceError) -> [ManagedUser] {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listUsers(query: .init(prefix: prefix, search: search, after: after, limit: limit))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// One user, or `nil` when the server has none by that name.
    public func user(_ username: String) async throws(ServiceError) -> ManagedUser? {
        let output: Operations.GetUser.Output
        do {
            output = try await ServiceCall.run(at: serverURL) {
                try await client.getUser(path: .init(username: username))
            }
        } catch  where error == .notFound {
            return nil
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Replaces a user's attributes (each a name and the values it lists), which decide
    /// the entities of a set with a subset they receive; an attribute with no values goes.
    @discardableResult
    public func setAttributes(
        _ attributes: [String: [String]],
        user username: String
    ) async throws(ServiceError)
        -> ManagedUser
    {
        try await updateUser(
            username,
            Components.Schemas.UserUpdate(attributes: .init(additionalProperties: attributes))
        )
    }

    /// Blocks a user (their sessions end and they cannot sign in) or unblocks them.
    @discardableResult
    public func setBlocked(_ blocked: Bool, user username: String) async throws(ServiceError) -> ManagedUser {
        try await updateUser(username, Components.Schemas.UserUpdate(blocked: blocked))
    }

    /// Gives a user a new password; their sessions end.
    @discardableResult
    public func setPassword(_ password: Secret, user username: String) async throws(ServiceError) -> ManagedUser {
        try await updateUser(username, Components.Schemas.UserUpdate(password: password.value))
    }

    /// Ends every session of a user, on every app and device; they can sign in again
    /// unless blocked.
    public func revokeSessions(user username: String) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.revokeUserSessions(path: .init(username: username))
        }
        switch output {
        case .noContent: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The provider identities linked to a user.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` for an unknown user.
    public func identityLinks(user username: String) async throws(ServiceError) -> [ManagedIdentityLink] {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listIdentityLinks(path: .init(username: username))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }.map(ManagedIdentityLink.init)
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Links a person of an OpenID Connect provider to a user or an operator: the next
    /// time the provider signs them in (to an app, or to the console), they are that one.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 409 when the
    ///   identity is linked to one of that kind already, ``ServiceError/notFound`` when
    ///   there is no such user or operator.
    @discardableResult
    public func linkIdentity(
        issuer: String,
        subject: String,
        to holder: ManagedIdentityLink.Holder
    ) async throws(ServiceError) -> ManagedIdentityLink {
        let body = Components.Schemas.IdentityLinkCreate(issuer: issuer, subject: subject)
        switch holder {
        case .user(let username):
            let output = try await ServiceCall.run(at: serverURL) {
                try await client.linkIdentity(path: .init(username: username), body: .json(body))
            }
            guard case .created(let created) = output else { throw ServiceCall.unexpected(output) }
            return ManagedIdentityLink(try ServiceCall.decode { try created.body.json })
        case .operator(let name):
            let output = try await ServiceCall.run(at: serverURL) {
                try await client.linkOperatorIdentity(path: .init(name: name), body: .json(body))
            }
            guard case .created(let created) = output else { throw ServiceCall.unexpected(output) }
            return ManagedIdentityLink(try ServiceCall.decode { try created.body.json }, operator: name)
        }
    }

    /// Removes a provider identity from a user or an operator; sessions already open stay.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` when it is not linked to them.
    public func unlinkIdentity(
        issuer: String,
        subject: String,
        from holder: ManagedIdentityLink.Holder
    ) async throws(ServiceError) {
        switch holder {
        case .user(let username):
            let output = try await ServiceCall.run(at: serverURL) {
                try await client.unlinkIdentity(
                    path: .init(username: username),
                    query: .init(issuer: issuer, subject: subject)
                )
            }
            guard case .noContent = output else { throw ServiceCall.unexpected(output) }
        case .operator(let name):
            let output = try await ServiceCall.run(at: serverURL) {
                try await client.unlinkOperatorIdentity(
                    path: .init(name: name),
                    query: .init(issuer: issuer, subject: subject)
                )
            }
            guard case .noContent = output else { throw ServiceCall.unexpected(output) }
        }
    }

    private func updateUser(
        _ username: String,
        _ body: Components.Schemas.UserUpdate
    ) async throws(ServiceError) -> ManagedUser {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.updateUser(path: .init(username: username), body: .json(body))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }
}

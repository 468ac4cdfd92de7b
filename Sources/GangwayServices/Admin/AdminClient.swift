import Foundation
import GangwayProtocol
import OpenAPIRuntime

/// An operator's client of the server's admin API, generated from the same document as
/// the server, behind the admin token.
///
/// ```swift
/// let admin = AdminClient(serverURL: url, adminToken: token)
/// try await admin.createApp(id: "checks", name: "Aircraft checks", emailDomains: ["airline.example"])
/// try await admin.createUser("alice", password: password, displayName: "Alice")
/// ```
///
/// Every failure is a ``ServiceError`` with the server's stable code and message; the
/// token and passwords never appear in one.
public struct AdminClient: Sendable {
    /// Where the server answers.
    public let serverURL: URL
    private let adminToken: String
    private let transport: any ClientTransport

    public init(serverURL: URL, adminToken: String, transport: (any ClientTransport)? = nil) {
        self.serverURL = serverURL
        self.adminToken = adminToken
        self.transport = transport ?? MobileServicesClient.urlSessionTransport()
    }

    private var client: Client {
        Client(
            serverURL: serverURL,
            configuration: .gangway,
            transport: transport,
            middlewares: [BearerTokenMiddleware(token: adminToken)]
        )
    }

    /// Creates an app with the server's default settings.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 409 when the ID or a domain is taken.
    public func createApp(id: String, name: String, emailDomains: [String]) async throws(ServiceError) {
        let body = Components.Schemas.AppCreate(appID: id, name: name, emailDomains: emailDomains)
        let output = try await ServiceCall.run { try await client.createApp(body: .json(body)) }
        switch output {
        case .created: return
        case .badRequest(let reply): throw ServiceCall.failure(400, reply)
        case .unauthorized(let reply): throw ServiceCall.failure(401, reply)
        case .conflict(let reply): throw ServiceCall.failure(409, reply)
        case .contentTooLarge(let reply): throw ServiceCall.failure(413, reply)
        case .unsupportedMediaType(let reply): throw ServiceCall.failure(415, reply)
        case .undocumented(let status, _): throw .invalidResponse(status: status)
        }
    }

    /// Creates a user who can sign in with `password`.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 409 when the name is taken.
    public func createUser(_ username: String, password: String, displayName: String? = nil) async throws(ServiceError)
    {
        let body = Components.Schemas.UserCreate(username: username, password: password, displayName: displayName)
        let output = try await ServiceCall.run { try await client.createUser(body: .json(body)) }
        switch output {
        case .created: return
        case .badRequest(let reply): throw ServiceCall.failure(400, reply)
        case .unauthorized(let reply): throw ServiceCall.failure(401, reply)
        case .conflict(let reply): throw ServiceCall.failure(409, reply)
        case .contentTooLarge(let reply): throw ServiceCall.failure(413, reply)
        case .unsupportedMediaType(let reply): throw ServiceCall.failure(415, reply)
        case .undocumented(let status, _): throw .invalidResponse(status: status)
        }
    }
}

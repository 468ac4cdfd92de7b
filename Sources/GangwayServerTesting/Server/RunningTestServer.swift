import Foundation
import GangwayServer
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// A ``TestServer`` while it serves: where it listens, its admin token and key, and
/// calls over one loopback connection, or straight to its router
/// (``TestServer/Transport/router``).
public struct RunningTestServer: Sendable {
    /// The server.
    public let server: MobileServicesServer
    /// Where devices reach it, such as `http://127.0.0.1:49152`; port 0 when it serves
    /// its router alone (``TestServer/Transport/router``), where nothing listens.
    public let url: URL
    /// The admin token, for the `Authorization: Bearer` header of admin calls.
    public let adminToken: String
    /// The public key activation payloads were signed with when the server started, as
    /// an app built against it pins it (``activationKeyPEM()`` after a rotation).
    public let pinnedActivationKeyPEM: String
    /// How the calls reach the server.
    let client: Client

    /// A loopback connection, or HummingbirdTesting's client of the router.
    enum Client: Sendable {
        case loopback(TestClient)
        case router(any TestClientProtocol)
    }

    /// The port it listens on.
    public var port: Int { url.port ?? 0 }

    /// The public key activation payloads are signed with now.
    public func activationKeyPEM() async throws -> String { try await server.activationPublicKeyPEM() }

    /// Sends a request; `json` is sent as the body exactly as given, as
    /// `application/json` unless `headers` says otherwise.
    public func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String? = nil,
        json: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> ServerReply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if json != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        headers[.connection] = "keep-alive"
        let body = json.map { ByteBuffer(string: $0) }
        switch client {
        case .loopback(let client):
            let response = try await client.execute(
                TestClient.Request(path, method: method, authority: "localhost", headers: headers, body: body)
            )
            return ServerReply(
                status: response.status,
                headers: response.headers,
                body: response.body.map { Data($0.readableBytesView) } ?? Data()
            )
        case .router(let client):
            let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body)
            return ServerReply(
                status: response.status,
                headers: response.headers,
                body: Data(response.body.readableBytesView)
            )
        }
    }

    /// Sends `fields` as a form (`application/x-www-form-urlencoded`), in their order, as
    /// OAuth clients and browsers send one.
    public func sendForm(_ path: String, _ fields: [(String, String)]) async throws -> ServerReply {
        try await send(
            .post,
            path,
            json: Self.formBody(fields),
            headers: [.contentType: "application/x-www-form-urlencoded"]
        )
    }

    /// `fields` percent-encoded as a form body or a query: everything but the unreserved
    /// characters escaped.
    public static func formBody(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
    }

    /// Sends `body` encoded as JSON (dates in ISO 8601).
    public func send<Body: Encodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String? = nil,
        encoding body: Body
    ) async throws -> ServerReply {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try await send(
            method,
            path,
            token: token,
            json: String(decoding: try encoder.encode(body), as: UTF8.self)
        )
    }

    /// An admin call with the admin token; throws unless the server answers with a 2xx
    /// status. For a call expected to fail, use ``send(_:_:token:json:headers:)``.
    @discardableResult
    public func admin(_ method: HTTPRequest.Method, _ path: String, json: String? = nil) async throws -> ServerReply {
        let reply = try await send(method, path, token: adminToken, json: json)
        guard (200..<300).contains(reply.status.code) else {
            throw TestServerError("\(method) \(path): \(reply.status.code) \(reply.text)")
        }
        return reply
    }

    /// Seeds more while the server serves.
    public func seed(_ seed: ServerSeed) async throws {
        try await server.seed(seed)
    }
}

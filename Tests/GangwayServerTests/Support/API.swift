import Foundation
import GangwayProtocol
import GangwayServerTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore

/// Calls to the server under test, returning status, headers and the JSON body, and the
/// steps many tests share (sign in, register a device).
struct API: Sendable {
    typealias Reply = ServerReply

    let running: RunningTestServer
    let fixture: ServerFixture

    /// Sends a request; `body` is sent as JSON text exactly as given.
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String? = nil,
        json body: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        try await running.send(method, path, token: token, json: body, headers: extra)
    }

    func send<Body: Encodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String? = nil,
        encoding body: Body
    ) async throws -> Reply {
        try await running.send(method, path, token: token, encoding: body)
    }

    /// An admin call, whatever the status.
    func admin(_ method: HTTPRequest.Method, _ path: String, json body: String? = nil) async throws -> Reply {
        try await send(method, path, token: fixture.adminToken, json: body)
    }

    /// Signs in and returns the session token.
    func signIn(_ username: String, password: String? = nil, device: String = "device-1") async throws -> String {
        let reply = try await signInReply(username, password: password, device: device)
        try expectStatus(reply, .created)
        return try reply.decode(Components.Schemas.Session.self).token
    }

    func signInReply(
        _ username: String,
        password: String? = nil,
        device: String = "device-1",
        cookie: String? = nil,
        headers: HTTPFields = [:]
    ) async throws -> Reply {
        let body = Components.Schemas.SignInRequest(
            username: username,
            password: password ?? "\(username)-password",
            deviceID: device,
            deviceCookie: cookie
        )
        let json = String(decoding: try JSONEncoder().encode(body), as: UTF8.self)
        return try await send(.post, "/apps/checks/sessions", json: json, headers: headers)
    }

    /// Registers the device the token was signed in on.
    func register(token: String, device: String = "device-1") async throws -> Components.Schemas.DeviceRegistration {
        let reply = try await send(
            .put,
            "/apps/checks/devices/\(device)",
            token: token,
            json: #"{"deviceName": "Stand 12 tablet", "platform": "linux", "appVersion": "1.0.0"}"#
        )
        try expectStatus(reply, .ok)
        return try reply.decode(Components.Schemas.DeviceRegistration.self)
    }

    func expectStatus(_ reply: Reply, _ status: HTTPResponse.Status) throws {
        try reply.expect(status)
    }
}

extension API {
    /// How long one of a burst of parallel requests may wait for its answer. The burst's
    /// writes take their turns one after another (on SQLite, one writer at a time), so in
    /// a loaded test run the last of 40 can wait well past a lone request's 30 s; the
    /// tests check what each answer says, not how soon it came.
    static let burstTimeout: Duration = .seconds(120)

    /// Sends `count` sign-ins at once, each over its own connection, to this server or,
    /// in turn, to each of `ports`; `request` gives each its user name, password and
    /// headers.
    func parallelSignInReplies(
        count: Int,
        ports: [Int]? = nil,
        appID: String = "checks",
        _ request: @escaping @Sendable (Int) -> (String, String, HTTPFields)
    ) async throws -> [ServerReply] {
        let ports = ports ?? [running.port]
        return try await withThrowingTaskGroup(of: ServerReply.self) { group in
            for index in 0..<count {
                group.addTask {
                    let (username, password, headers) = request(index)
                    let body = Components.Schemas.SignInRequest(username: username, password: password, deviceID: "d")
                    var fields = headers
                    fields[.contentType] = "application/json"
                    let request = TestClient.Request(
                        "/apps/\(appID)/sessions",
                        method: .post,
                        authority: "localhost",
                        headers: fields,
                        body: ByteBuffer(bytes: try JSONEncoder().encode(body))
                    )
                    let port = ports[index % ports.count]
                    let client = TestClient(
                        host: "127.0.0.1",
                        port: port,
                        configuration: .init(timeout: Self.burstTimeout)
                    )
                    client.connect()
                    let response: TestClient.Response
                    do {
                        response = try await client.execute(request)
                    } catch {
                        try? await client.shutdown()
                        throw error
                    }
                    try await client.shutdown()
                    return ServerReply(
                        status: response.status,
                        headers: response.headers,
                        body: response.body.map { Data($0.readableBytesView) } ?? Data()
                    )
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// Sends one request over a connection of its own, closed after it: for an answer
    /// that closes its connection (a body too large).
    func sendAlone(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String? = nil,
        json: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws
        -> ServerReply
    {
        let client = TestClient(host: "127.0.0.1", port: running.port, configuration: .init(timeout: .seconds(30)))
        client.connect()
        var headers: HTTPFields = json == nil ? [:] : [.contentType: "application/json"]
        for field in extra { headers[field.name] = field.value }
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response: TestClient.Response
        do {
            response = try await client.execute(
                TestClient.Request(
                    path,
                    method: method,
                    authority: "localhost",
                    headers: headers,
                    body: json.map { ByteBuffer(string: $0) }
                )
            )
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
        return ServerReply(
            status: response.status,
            headers: response.headers,
            body: response.body.map { Data($0.readableBytesView) } ?? Data()
        )
    }

    /// Sends `count` copies of a form to `path` at once, each over its own connection.
    /// `count` posts of one form at once, each on its own connection; `forwardedFor` gives
    /// the `n`th its `X-Forwarded-For` (for a server that trusts loopback as its proxy).
    func parallelForms(
        count: Int,
        _ path: String,
        _ fields: [(String, String)],
        forwardedFor: (@Sendable (Int) -> String)? = nil
    ) async throws -> [ServerReply] {
        let port = running.port
        let body = RunningTestServer.formBody(fields)
        return try await withThrowingTaskGroup(of: ServerReply.self) { group in
            for index in 0..<count {
                var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                if let forwardedFor { headers[HTTPField.Name("X-Forwarded-For")!] = forwardedFor(index) }
                group.addTask {
                    let client = TestClient(
                        host: "127.0.0.1",
                        port: port,
                        configuration: .init(timeout: Self.burstTimeout)
                    )
                    client.connect()
                    let response: TestClient.Response
                    do {
                        response = try await client.execute(
                            TestClient.Request(
                                path,
                                method: .post,
                                authority: "localhost",
                                headers: headers,
                                body: ByteBuffer(string: body)
                            )
                        )
                    } catch {
                        try? await client.shutdown()
                        throw error
                    }
                    try await client.shutdown()
                    return ServerReply(
                        status: response.status,
                        headers: response.headers,
                        body: response.body.map { Data($0.readableBytesView) } ?? Data()
                    )
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// The statuses of ``parallelSignInReplies(count:ports:_:)``.
    func parallelSignIns(
        count: Int,
        ports: [Int]? = nil,
        appID: String = "checks",
        _ request: @escaping @Sendable (Int) -> (String, String, HTTPFields)
    ) async throws -> [HTTPResponse.Status] {
        try await parallelSignInReplies(count: count, ports: ports, appID: appID, request).map(\.status)
    }
}

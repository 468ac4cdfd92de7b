import Foundation
import GangwayProtocol
import GangwayServer
import GangwayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The databases a server test runs against: SQLite always, PostgreSQL when
/// `GANGWAY_POSTGRES_URL` names one (CI sets it).
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgresql

    static var available: [Backend] {
        ProcessInfo.processInfo.environment["GANGWAY_POSTGRES_URL"] == nil ? [.sqlite] : [.sqlite, .postgresql]
    }

    var testDescription: String { rawValue }
}

/// A server on a loopback port with its own empty database, a manual clock and bcrypt at
/// its lowest cost, plus helpers to call it.
struct ServerFixture: Sendable {
    let server: MobileServicesServer
    let directory: TemporaryDirectory
    let clock: ManualWallClock
    let logs: LogCapture
    let adminToken: String

    static let appID = "checks"
    static let domain = "airline.example"

    init(backend: Backend = .sqlite, allowedSignInFailures: Int = 5) async throws {
        directory = try TemporaryDirectory(prefix: "gangway-server")
        clock = ManualWallClock(Date())
        logs = LogCapture()
        var configuration = ServerConfiguration(
            host: "127.0.0.1",
            port: 0,
            dataDirectory: directory.url,
            bcryptCost: 4,
            allowedSignInFailures: allowedSignInFailures
        )
        if backend == .postgresql {
            configuration.postgresURL = try PostgresTestDatabase.fresh()
        }
        server = try await MobileServicesServer(configuration: configuration, logger: logs.logger, now: clock.now)
        adminToken = try String(contentsOf: configuration.adminTokenPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `body` against the server listening on loopback.
    func run(_ body: @escaping @Sendable (API) async throws -> Void) async throws {
        let application = try server.application()
        try await application.test(.live) { client in
            try await body(API(client: client, fixture: self))
        }
    }

    /// Runs `body` with the standard app ("checks", domain airline.example) and the
    /// users alice and bob (passwords alice-password and bob-password) created.
    func runSeeded(_ body: @escaping @Sendable (API) async throws -> Void) async throws {
        try await run { api in
            try await api.seed()
            try await body(api)
        }
    }
}

/// Calls to the server under test, returning status, headers and the JSON body.
struct API: Sendable {
    let client: any TestClientProtocol
    let fixture: ServerFixture

    struct Reply: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: Data

        /// The body as JSON.
        var json: [String: any Sendable] {
            get throws {
                guard let object = try JSONSerialization.jsonObject(with: body) as? [String: any Sendable] else {
                    throw FixtureError("the body is not a JSON object: \(text)")
                }
                return object
            }
        }

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The stable code of an error reply.
        var code: String? { (try? json)?["code"] as? String }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(T.self, from: body)
        }
    }

    /// Sends a request; `body` is sent as JSON text exactly as given.
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String? = nil,
        json body: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        let response = try await client.execute(
            uri: path,
            method: method,
            headers: headers,
            body: body.map { ByteBuffer(string: $0) }
        )
        return Reply(status: response.status, headers: response.headers, body: Data(response.body.readableBytesView))
    }

    func send<Body: Encodable>(
        _ method: HTTPRequest.Method,
        _ path: String,
        token: String? = nil,
        encoding body: Body
    ) async throws -> Reply {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try await send(
            method,
            path,
            token: token,
            json: String(decoding: try encoder.encode(body), as: UTF8.self)
        )
    }

    func admin(_ method: HTTPRequest.Method, _ path: String, json body: String? = nil) async throws -> Reply {
        try await send(method, path, token: fixture.adminToken, json: body)
    }

    func seed() async throws {
        let app = try await admin(
            .post,
            "/admin/apps",
            json: #"{"appID": "checks", "name": "Ground checks", "emailDomains": ["airline.example"]}"#
        )
        try expectStatus(app, .created)
        for (name, display) in [("alice", "Alice"), ("bob", "Bob")] {
            let user = try await admin(
                .post,
                "/admin/users",
                json: #"{"username": "\#(name)", "password": "\#(name)-password", "displayName": "\#(display)"}"#
            )
            try expectStatus(user, .created)
        }
    }

    /// Signs in and returns the session token.
    func signIn(_ username: String, password: String? = nil, device: String = "device-1") async throws -> String {
        let reply = try await signInReply(username, password: password, device: device)
        try expectStatus(reply, .created)
        return try reply.decode(Components.Schemas.Session.self).token
    }

    func signInReply(_ username: String, password: String? = nil, device: String = "device-1") async throws -> Reply {
        try await send(
            .post,
            "/apps/checks/sessions",
            encoding: Components.Schemas.SignInRequest(
                username: username,
                password: password ?? "\(username)-password",
                deviceID: device
            )
        )
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
        guard reply.status == status else {
            throw FixtureError("expected \(status.code), got \(reply.status.code): \(reply.text)")
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

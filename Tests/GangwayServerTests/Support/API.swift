import Foundation
import GangwayProtocol
import GangwayServerTesting
import HTTPTypes
import HummingbirdTesting

/// Calls to the server under test, returning status, headers and the JSON body, and the
/// steps many tests share (sign in, register a device).
struct API: Sendable {
    typealias Reply = ServerReply

    let running: RunningTestServer
    let fixture: ServerFixture

    var client: TestClient { running.client }

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
        try reply.expect(status)
    }
}

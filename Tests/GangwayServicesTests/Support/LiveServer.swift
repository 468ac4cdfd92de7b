import Foundation
import GangwayServer
import GangwayTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A mobile-services server on a loopback port, with its own SQLite database, bcrypt at
/// its lowest cost, the app "checks" (domain airline.example) and the users alice and bob.
struct LiveServer: Sendable {
    let server: MobileServicesServer
    let directory: TemporaryDirectory
    let adminToken: String

    static let appID = "checks"
    static let passwords = ["alice": "alice-password", "bob": "bob-password"]

    init() async throws {
        directory = try TemporaryDirectory(prefix: "gangway-services-server")
        let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory.url, bcryptCost: 4)
        server = try await MobileServicesServer(configuration: configuration, logger: LogCapture().logger)
        adminToken = try String(contentsOf: configuration.adminTokenPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `body` while the server listens, with the app and users created.
    func run(_ body: @escaping @Sendable (Running) async throws -> Void) async throws {
        defer { directory.remove() }
        let application = try server.application()
        try await application.test(.live) { client in
            let port = try #require(client.port)
            let running = Running(client: client, url: URL(string: "http://127.0.0.1:\(port)")!, server: self)
            try await running.seed()
            try await body(running)
        }
    }

    /// The server while it runs.
    struct Running: Sendable {
        let client: any TestClientProtocol
        /// Where devices reach it.
        let url: URL
        let server: LiveServer

        /// The key activation payloads are signed with, as an app pins it.
        var activationKeyPEM: String { server.server.activationPublicKeyPEM }

        /// An admin call; returns the status and the body.
        @discardableResult
        func admin(
            _ method: HTTPRequest.Method,
            _ path: String,
            json: String? = nil
        ) async throws -> (status: HTTPResponse.Status, body: Data) {
            var headers: HTTPFields = [.authorization: "Bearer \(server.adminToken)"]
            if json != nil { headers[.contentType] = "application/json" }
            let response = try await client.execute(
                uri: path,
                method: method,
                headers: headers,
                body: json.map { ByteBuffer(string: $0) }
            )
            let body = Data(response.body.readableBytesView)
            guard response.status.code < 300 else {
                throw LiveServerError(
                    "\(method) \(path): \(response.status.code) \(String(decoding: body, as: UTF8.self))"
                )
            }
            return (response.status, body)
        }

        func seed() async throws {
            try await admin(
                .post,
                "/admin/apps",
                json: #"{"appID": "checks", "name": "Ground checks", "emailDomains": ["airline.example"]}"#
            )
            for (name, display) in [("alice", "Alice"), ("bob", "Bob")] {
                try await admin(
                    .post,
                    "/admin/users",
                    json: #"{"username": "\#(name)", "password": "\#(name)-password", "displayName": "\#(display)"}"#
                )
            }
        }

        /// Changes the app's settings (an `AppSettingsUpdate` as JSON).
        func updateSettings(_ json: String) async throws {
            try await admin(.patch, "/admin/apps/checks", json: #"{"settings": \#(json)}"#)
        }

        /// Sets the device registration of `user` to `status` (locked, wiped, active).
        func setDevice(of user: String, to status: String) async throws {
            let (_, body) = try await admin(.get, "/admin/apps/checks/devices")
            let list = try JSONSerialization.jsonObject(with: body)
            let devices = (list as? [[String: Any]]) ?? ((list as? [String: Any])?["devices"] as? [[String: Any]]) ?? []
            guard
                let device = devices.first(where: {
                    $0["userID"] as? String == user && $0["status"] as? String != "wiped"
                }),
                let id = device["registrationID"] as? String
            else { throw LiveServerError("no registration of \(user)") }
            try await admin(.patch, "/admin/apps/checks/devices/\(id)", json: #"{"status": "\#(status)"}"#)
        }

        /// A signed activation link for the app.
        func activationLink() async throws -> String {
            let (_, body) = try await admin(.post, "/admin/apps/checks/activations")
            let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            guard let link = object?["link"] as? String else { throw LiveServerError("no link in the activation") }
            return link
        }
    }
}

struct LiveServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

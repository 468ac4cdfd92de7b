import Crypto
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite("Public routes: health, discovery, activation key, version check", .servingTurn, .tags(.postgres), .skipsTags)
struct PublicRouteTests {
    @Test("health names the storage", arguments: Backend.available)
    func health(backend: Backend) async throws {
        try await ServerFixture(backend: backend).run { api in
            let reply = try await api.send(.get, "/health")
            #expect(reply.status == .ok)
            #expect(try reply.decode(Components.Schemas.Health.self).storage.rawValue == backend.rawValue)
        }
    }

    @Test("discovery finds the app by the email's domain, in any case", arguments: Backend.available)
    func discovery(backend: Backend) async throws {
        try await ServerFixture(over: .loopback, backend: backend).runSeeded { api in
            let reply = try await api.send(.get, "/discovery?email=Alice.Smith@AIRLINE.example")
            try api.expectStatus(reply, .ok)
            let configuration = try reply.decode(Components.Schemas.AppConfiguration.self)
            #expect(configuration.appID == "checks")
            #expect(configuration.appName == "Ground checks")
            #expect(configuration.authType == .basic)
            let url = try #require(URL(string: configuration.serverURL))
            #expect(url.host == "127.0.0.1")
            #expect(url.port != 0 && url.port != nil)
        }
    }

    @Test("discovery: an unknown domain is 404, a malformed address 400", arguments: Backend.available)
    func discoveryErrors(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let unknown = try await api.send(.get, "/discovery?email=someone@elsewhere.example")
            #expect(unknown.status == .notFound)
            #expect(unknown.code == "DOMAIN_UNKNOWN")
            for email in [
                "no-at-sign", "@airline.example", "a@nodot", "a@bad..example", "a@x_y.example", "a%20b@airline.example",
            ] {
                let reply = try await api.send(.get, "/discovery?email=\(email)")
                #expect(reply.status == .badRequest, "\(email)")
                #expect(reply.code == "INVALID_EMAIL" || reply.code == "INVALID_DOMAIN", "\(email)")
            }
            let missing = try await api.send(.get, "/discovery")
            #expect(missing.status == .badRequest)
        }
    }

    @Test("activation links are signed with the key the server publishes", arguments: Backend.available)
    func activationSignature(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let key = try await api.send(.get, "/activation-key").decode(Components.Schemas.ActivationKey.self)
            let publicKey = try P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM)
            let reply = try await api.admin(.post, "/admin/apps/checks/activations")
            try api.expectStatus(reply, .created)
            let activation = try reply.decode(Components.Schemas.Activation.self)
            let payload = try #require(Data(base64URL: activation.payload))
            let signature = try P256.Signing.ECDSASignature(
                rawRepresentation: try #require(Data(base64URL: activation.signature))
            )
            #expect(publicKey.isValidSignature(signature, for: payload))
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let configuration = try decoder.decode(Components.Schemas.AppConfiguration.self, from: payload)
            #expect(configuration == activation.configuration)
            #expect(
                activation.link == "gangway://activate?payload=\(activation.payload)&signature=\(activation.signature)"
            )
            var tampered = payload
            tampered[tampered.startIndex] ^= 1
            #expect(!publicKey.isValidSignature(signature, for: tampered))
        }
    }

    @Test("an activation link activates for validDays (7 by default) and carries a nonce of its own")
    func activationExpiry() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let first = try await api.admin(.post, "/admin/apps/checks/activations")
                .decode(Components.Schemas.Activation.self).configuration
            let second = try await api.admin(.post, "/admin/apps/checks/activations?validDays=1")
                .decode(Components.Schemas.Activation.self).configuration
            let week = try #require(first.activationExpiresAt).timeIntervalSince(fixture.clock.date)
            #expect(abs(week - 7 * 24 * 3600) < 2)
            let day = try #require(second.activationExpiresAt).timeIntervalSince(fixture.clock.date)
            #expect(abs(day - 24 * 3600) < 2)
            let nonce = try #require(first.activationNonce)
            #expect(nonce != second.activationNonce)
            #expect(Data(base64URL: nonce)?.count == 16)
            for days in ["0", "366", "-1"] {
                #expect(
                    try await api.admin(.post, "/admin/apps/checks/activations?validDays=\(days)").status == .badRequest
                )
            }
            // Discovery answers the configuration without link terms.
            let discovered = try await api.send(.get, "/discovery?email=alice@airline.example")
                .decode(Components.Schemas.AppConfiguration.self)
            #expect(discovered.activationExpiresAt == nil && discovered.activationNonce == nil)
        }
    }

    @Test("the signing key and admin token survive a restart")
    func keysSurviveRestart() async throws {
        let fixture = try await ServerFixture()
        let again = try await MobileServicesServerRestart.restart(fixture)
        #expect(try await again.activationPublicKeyPEM() == (try await fixture.server.activationPublicKeyPEM()))
        #expect(again.adminToken == .existing(path: fixture.server.configuration.adminTokenPath.path))
    }

    @Test("version check: active, inactive with a message, malformed", arguments: Backend.available)
    func versionCheck(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let open = try await api.send(.get, "/apps/checks/version-check?version=0.1")
            #expect(try open.decode(Components.Schemas.VersionStatus.self).active)

            try api.expectStatus(
                try await api.admin(.patch, "/admin/apps/checks", json: #"{"minimumVersion": "1.10.0"}"#),
                .ok
            )
            for (version, active) in [
                ("1.9.9", false), ("1.10", true), ("1.10.0", true), ("2.0.0", true), ("1.2", false),
                ("123456789.123456789.123456789.123456789", true),
            ] {
                let status = try await api.send(.get, "/apps/checks/version-check?version=\(version)")
                    .decode(Components.Schemas.VersionStatus.self)
                #expect(status.active == active, "\(version)")
                #expect(status.minimumVersion == "1.10.0")
                #expect((status.message != nil) == !active)
            }
            for version in ["1.x", "", "1..2", "-1", "1.2.3.4.5"] {
                let reply = try await api.send(.get, "/apps/checks/version-check?version=\(version)")
                #expect(reply.status == .badRequest, "\(version)")
            }
            let unknown = try await api.send(.get, "/apps/nope/version-check?version=1.0")
            #expect(unknown.status == .notFound)
            #expect(unknown.code == "APP_NOT_FOUND")
        }
    }

    @Test("the OpenAPI document is served as it is kept in the repository")
    func document() async throws {
        try await ServerFixture().run { api in
            let reply = try await api.send(.get, "/openapi.json")
            #expect(reply.status == .ok)
            #expect(reply.body == (try APIDocument.json()))
            let object = try reply.json
            #expect(object["openapi"] as? String == "3.1.0")
        }
    }
}

extension Data {
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}

import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import Testing

@Suite("Admin API: the admin token, apps, users, activation QR codes", .servingTurn, .tags(.postgres), .skipsTags)
struct AdminTests {
    /// Every operation of the API document that needs the admin token, its path
    /// parameters filled in with names that exist in the standard seed.
    static var adminOperations: [(method: HTTPRequest.Method, path: String)] {
        get throws {
            let document = try JSONSerialization.jsonObject(with: try APIDocument.json()) as? [String: Any]
            let paths = try #require(document?["paths"] as? [String: [String: Any]])
            let names = [
                "{appID}": "checks", "{registrationID}": "r1", "{username}": "alice", "{entitySet}": "checks",
                "{entityID}": "e1", "{name}": "ops.alice",
            ]
            var operations: [(HTTPRequest.Method, String)] = []
            for (template, methods) in paths {
                for (method, value) in methods {
                    let security = (value as? [String: Any])?["security"] as? [[String: Any]]
                    guard security?.contains(where: { $0["admin"] != nil }) == true else { continue }
                    let path = names.reduce(template) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
                    operations.append((try #require(HTTPRequest.Method(method.uppercased())), path))
                }
            }
            return operations.sorted { "\($0.1) \($0.0)" < "\($1.1) \($1.0)" }
        }
    }

    @Test("every admin operation of the API document answers 401 to no token, a wrong one and a session's")
    func needsToken() async throws {
        let operations = try Self.adminOperations
        #expect(operations.count >= 16)
        try await ServerFixture().runSeeded { api in
            let session = try await api.signIn("alice")
            for (method, path) in operations {
                for token in [nil, "wrong", "gw_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", session] {
                    let body = [.post, .put, .patch].contains(method) ? "{}" : nil
                    let reply = try await api.send(method, path, token: token, json: body)
                    #expect(reply.status == .unauthorized, "\(method) \(path)")
                    #expect(reply.code == "ADMIN_TOKEN_REQUIRED", "\(method) \(path)")
                }
            }
            // Nothing changed: alice's password still works, the app is as seeded.
            #expect(try await api.signInReply("alice").status == .created)
            #expect(try await api.admin(.get, "/admin/apps").decode([Components.Schemas.App].self).count == 1)
        }
    }

    @Test("the proof answers a challenge with the admin token's key, needs no token, and refuses a bad challenge")
    func proof() async throws {
        try await ServerFixture().runSeeded { api in
            let challenge = AdminProof.challenge()
            let reply = try await api.send(.post, "/admin/proof", json: #"{"challenge": "\#(challenge)"}"#)
            try api.expectStatus(reply, .ok)
            let proof = try reply.decode(Components.Schemas.AdminProof.self).proof
            #expect(AdminProof.verify(proof, challenge: challenge, token: api.fixture.adminToken))
            #expect(!AdminProof.verify(proof, challenge: challenge, token: "gw_another-token"))
            #expect(!AdminProof.verify(proof, challenge: AdminProof.challenge(), token: api.fixture.adminToken))
            // The proof is not the token, nor its hash.
            #expect(!reply.text.contains(api.fixture.adminToken))
            #expect(!reply.text.contains(AdminProof.tokenHash(api.fixture.adminToken).base64URLEncoded))
            for bad in ["", "short", String(repeating: "A", count: 44), String(repeating: "*", count: 43)] {
                let refused = try await api.send(.post, "/admin/proof", json: #"{"challenge": "\#(bad)"}"#)
                #expect(refused.status == .badRequest, "\(bad)")
                #expect(refused.code == "INVALID_FIELD" || refused.code == "BAD_REQUEST", "\(bad)")
            }
        }
    }

    @Test(
        "unlinking an identity whose issuer or subject holds a control character finds none, on both stores (found by schemathesis)",
        arguments: Backend.available
    )
    func unlinkControlCharacters(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            for query in [
                "issuer=https%3A%2F%2Fidp.example%00&subject=x", "issuer=https%3A%2F%2Fidp.example&subject=a%01b",
            ] {
                let reply = try await api.admin(.delete, "/admin/users/alice/identities?\(query)")
                #expect(reply.status == .notFound, "\(query)")
                #expect(reply.code == "IDENTITY_NOT_LINKED", "\(query)")
            }
        }
    }

    @Test("apps: create, duplicate, domain taken, list, get, update", arguments: Backend.available)
    func apps(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let duplicate = try await api.admin(.post, "/admin/apps", json: #"{"appID": "checks", "name": "Again"}"#)
            #expect(duplicate.status == .conflict)
            #expect(duplicate.code == "APP_EXISTS")
            let taken = try await api.admin(
                .post,
                "/admin/apps",
                json: #"{"appID": "fuel", "name": "Fuel", "emailDomains": ["Airline.Example"]}"#
            )
            #expect(taken.status == .conflict)
            #expect(taken.code == "DOMAIN_TAKEN")
            #expect(try await api.admin(.get, "/admin/apps/fuel").status == .notFound)

            let created = try await api.admin(
                .post,
                "/admin/apps",
                json:
                    #"{"appID": "fuel", "name": "Fuel", "emailDomains": ["fuel.example"], "settings": {"passwordPolicy": {"passwordPolicyMinLength": 6}}}"#
            )
            try api.expectStatus(created, .created)
            let app = try created.decode(Components.Schemas.App.self)
            #expect(app.settings.passwordPolicy?.passwordPolicyMinLength == 6)
            #expect(app.settings.passwordPolicy?.passwordPolicyRetryLimit == 10)

            let list = try await api.admin(.get, "/admin/apps").decode([Components.Schemas.App].self)
            #expect(list.map(\.appID) == ["checks", "fuel"])
            let fetched = try await api.admin(.get, "/admin/apps/fuel").decode(Components.Schemas.App.self)
            #expect(fetched.name == "Fuel")
            #expect(fetched.settings.passwordPolicy?.passwordPolicyMinLength == 6)

            let renamed = try await api.admin(
                .patch,
                "/admin/apps/fuel",
                json: #"{"name": "Fuel checks", "emailDomains": []}"#
            )
            #expect(try renamed.decode(Components.Schemas.App.self).name == "Fuel checks")
            #expect(try await api.send(.get, "/discovery?email=a@fuel.example").status == .notFound)

            for body in [
                #"{"appID": "bad id", "name": "x"}"#, #"{"appID": "ok", "name": ""}"#,
                #"{"appID": "ok", "name": "x", "minimumVersion": "one"}"#,
                #"{"appID": "ok", "name": "x", "emailDomains": ["nodot"]}"#,
            ] {
                #expect(try await api.admin(.post, "/admin/apps", json: body).status == .badRequest, "\(body)")
            }
        }
    }

    @Test("users: create, duplicate, weak password, get, list", arguments: Backend.available)
    func users(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let duplicate = try await api.admin(
                .post,
                "/admin/users",
                json: #"{"username": "ALICE", "password": "another-password"}"#
            )
            #expect(duplicate.status == .conflict)
            #expect(duplicate.code == "USER_EXISTS")
            for body in [
                #"{"username": "carol", "password": "short"}"#,
                #"{"username": "carol", "password": "\#(String(repeating: "x", count: 1025))"}"#,
                #"{"username": "car ol", "password": "long-enough"}"#,
                #"{"username": "carol", "password": "          "}"#,
                #"{"username": "carol", "password": "\t\t\t\t \n\n\n\n"}"#,
                #"{"username": "carol", "password": "long-enough", "displayName": " \u3000 "}"#,
            ] {
                let reply = try await api.admin(.post, "/admin/users", json: body)
                #expect(reply.status == .badRequest, "\(body)")
            }
            let blankApp = try await api.admin(.post, "/admin/apps", json: #"{"appID": "app2", "name": "  "}"#)
            #expect(
                blankApp.status == .badRequest && blankApp.text.contains("name must not be blank."),
                "\(blankApp.text)"
            )
            let created = try await api.admin(
                .post,
                "/admin/users",
                json: #"{"username": "carol", "password": "long-enough-1", "displayName": "Carol"}"#
            )
            #expect(created.status == .created)
            let carol = try await api.admin(.get, "/admin/users/carol").decode(Components.Schemas.User.self)
            #expect(carol.username == "carol")
            let users = try await api.admin(.get, "/admin/users").decode([Components.Schemas.User].self)
            #expect(users.map(\.username) == ["alice", "bob", "carol"])
            #expect(!(try await api.admin(.get, "/admin/users").text.contains("$2")))
            #expect(try await api.admin(.get, "/admin/users/nobody").code == "USER_NOT_FOUND")

            // A new password signs the user out and replaces the old one.
            let token = try await api.signIn("alice")
            try api.expectStatus(
                try await api.admin(.patch, "/admin/users/alice", json: #"{"password": "new-password-1"}"#),
                .ok
            )
            #expect(try await api.send(.get, "/apps/checks/settings", token: token).status == .unauthorized)
            #expect(try await api.signInReply("alice").status == .unauthorized)
            #expect(try await api.signInReply("alice", password: "new-password-1").status == .created)
            #expect(!fixture.logs.text.contains("new-password-1"))
        }
    }

    @Test(
        "the activation QR code is a PNG the server draws, which zbarimg reads as a signed link",
        .enabled(if: ExternalTool("zbarimg").executable != nil, "needs zbar-tools")
    )
    func qrCode() async throws {
        try await ServerFixture().runSeeded { api in
            let reply = try await api.admin(.get, "/admin/apps/checks/activation-qr")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "image/png")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("activation-\(UUID()).png")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(reply.body).write(to: file)
            let read = try #require(try await ExternalTool("zbarimg").run(["--raw", "-q", file.path]))
            #expect(read.text.contains("/activate?payload="), "\(read.text)")
            #expect(try await api.admin(.get, "/admin/apps/nope/activation-qr").status == .notFound)
        }
    }
}

@Suite("The admin token file", .servingTurn, .tags(.postgres), .skipsTags)
struct AdminTokenTests {
    @Test("written once with mode 0600, kept across restarts, never logged")
    func firstStart() async throws {
        let fixture = try await ServerFixture()
        let path = fixture.server.configuration.adminTokenPath.path
        #expect(fixture.server.adminToken == .created(path: path))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let restarted = try await MobileServicesServerRestart.restart(fixture)
        #expect(restarted.adminToken == .existing(path: path))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(fixture.adminToken))
        #expect(!fixture.logs.text.contains(fixture.adminToken))
    }

    @Test("a deleted file is reported, and a renewed token replaces the old one")
    func renew() async throws {
        let fixture = try await ServerFixture()
        let path = fixture.server.configuration.adminTokenPath.path
        try FileManager.default.removeItem(atPath: path)
        #expect(try await MobileServicesServerRestart.restart(fixture).adminToken == .elsewhere(path: path))

        let renewed = try await MobileServicesServerRestart.restart(fixture, renewAdminToken: true)
        #expect(renewed.adminToken == .created(path: path))
        let newToken = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(newToken != fixture.adminToken)
        try await TestServer(server: renewed, adminToken: newToken).run { running async throws in
            let api = API(running: running, fixture: fixture)
            #expect(try await api.send(.get, "/admin/apps", token: newToken).status == .ok)
            #expect(try await api.send(.get, "/admin/apps", token: fixture.adminToken).status == .unauthorized)
        }
    }

    @Test(
        "a token renewed by another server on the same data directory replaces the old one in a server that is running",
        arguments: Backend.available
    )
    func renewReachesRunningServers(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend) { $0.cacheLifetime = .milliseconds(200) }
        try await fixture.runSeeded { api in
            #expect(try await api.send(.get, "/admin/apps", token: fixture.adminToken).status == .ok)
            _ = try await MobileServicesServerRestart.restart(fixture, renewAdminToken: true)
            let path = fixture.server.configuration.adminTokenPath.path
            let newToken = try String(contentsOfFile: path, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await api.send(.get, "/admin/apps", token: fixture.adminToken).status == .unauthorized)
            #expect(try await api.send(.get, "/admin/apps", token: newToken).status == .ok)
        }
    }
}

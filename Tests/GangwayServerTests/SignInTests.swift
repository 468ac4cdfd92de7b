import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "Sign-in: tokens, wrong passwords, throttling, blocked users, sign-out, expiry",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct SignInTests {
    @Test("a sign-in returns an opaque token the server stores only hashed", arguments: Backend.available)
    func signIn(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let reply = try await api.signInReply("Alice", password: "alice-password")
            try api.expectStatus(reply, .created)
            let session = try reply.decode(Components.Schemas.Session.self)
            #expect(session.user.id == "alice")
            #expect(session.user.displayName == "Alice")
            #expect(session.token.hasPrefix("gw_") && session.token.count == 46)
            // The answer holds the token: no cache between keeps it.
            #expect(reply.headers[.cacheControl] == "no-store")
            #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(abs(session.expiresAt.timeIntervalSince(fixture.clock.date) - 12 * 3600) < 2)
            let settings = try await api.send(.get, "/apps/checks/settings", token: session.token)
            #expect(settings.status == .ok)
            #expect(!fixture.logs.text.contains(session.token))
            #expect(!fixture.logs.text.contains("alice-password"))
        }
        if backend == .sqlite {
            let database =
                try Data(contentsOf: fixture.server.configuration.sqlitePath)
                + ((try? Data(contentsOf: URL(fileURLWithPath: fixture.server.configuration.sqlitePath.path + "-wal")))
                    ?? Data())
            #expect(database.range(of: Data("alice-password".utf8)) == nil)
            #expect(database.range(of: Data("gw_".utf8)) == nil)
        }
    }

    @Test("reached at an https address, the server tells browsers to use nothing else; at http it does not")
    func strictTransport() async throws {
        let secure = try await ServerFixture { $0.publicURL = "https://mobile.example.com" }
        try await secure.runSeeded { api in
            let reply = try await api.send(.get, "/health")
            #expect(reply.headers[HTTPField.Name("Strict-Transport-Security")!] == "max-age=31536000")
        }
        try await ServerFixture().runSeeded { api in
            let reply = try await api.send(.get, "/health")
            #expect(reply.headers[HTTPField.Name("Strict-Transport-Security")!] == nil)
        }
    }

    @Test("a wrong password and an unknown user get the same answer", arguments: Backend.available)
    func wrongPassword(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let wrong = try await api.signInReply("alice", password: "not-it")
            let unknown = try await api.signInReply("mallory", password: "whatever")
            #expect(wrong.status == .unauthorized)
            #expect(unknown.status == .unauthorized)
            #expect(wrong.code == "AUTH_FAILED")
            #expect(try wrong.json["message"] as? String == (try unknown.json["message"] as? String))
        }
    }

    @Test(
        "after five failures the pair is throttled with Retry-After, doubling, and a success clears it",
        arguments: Backend.available
    )
    func throttling(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            for _ in 1...5 {
                #expect(try await api.signInReply("alice", password: "guess").status == .unauthorized)
            }
            let blocked = try await api.signInReply("alice")
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.code == "AUTH_THROTTLED")
            #expect(blocked.headers[.retryAfter] == "30")
            #expect(try blocked.json["retryAfterSeconds"] as? Int == 30)

            // Bob, from the same address, is not affected.
            #expect(try await api.signInReply("bob").status == .created)

            fixture.clock.advance(by: .seconds(31))
            #expect(try await api.signInReply("alice", password: "guess").status == .unauthorized)
            let longer = try await api.signInReply("alice")
            #expect(longer.headers[.retryAfter] == "60")

            fixture.clock.advance(by: .seconds(61))
            #expect(try await api.signInReply("alice").status == .created)
            // The success cleared the count: one failure is not blocked.
            #expect(try await api.signInReply("alice", password: "guess").status == .unauthorized)
            #expect(try await api.signInReply("alice").status == .created)
        }
    }

    @Test(
        "a blocked user's right password is answered exactly as a wrong one, even on a new device; unblocking lets them in",
        arguments: Backend.available
    )
    func blockedUser(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice")
            try api.expectStatus(try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": true}"#), .ok)
            // Blocking signs the user out everywhere.
            #expect(try await api.send(.get, "/apps/checks/settings", token: token).status == .unauthorized)
            let refused = try await api.signInReply("alice")
            let wrong = try await api.signInReply("alice", password: "nope")
            #expect(refused.status == .unauthorized)
            #expect(refused.code == "AUTH_FAILED")
            // The same document as a wrong password's, apart from the request ID.
            let strip = { (reply: ServerReply) in
                reply.text.replacingOccurrences(of: reply.headers[.init("x-request-id")!] ?? "", with: "")
            }
            #expect(strip(refused) == strip(wrong))
            #expect(refused.headers[.init("x-message-code")!] == wrong.headers[.init("x-message-code")!])
            // A new device ID gets no further.
            #expect(try await api.signInReply("alice", device: "a-new-device").code == "AUTH_FAILED")
            try api.expectStatus(try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": false}"#), .ok)
            #expect(try await api.signInReply("alice").status == .created)
        }
    }

    @Test("sign-out revokes the token, and only that one", arguments: Backend.available)
    func signOut(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let first = try await api.signIn("alice")
            let second = try await api.signIn("alice", device: "device-2")
            #expect(try await api.send(.delete, "/apps/checks/sessions/current", token: first).status == .noContent)
            let after = try await api.send(.get, "/apps/checks/settings", token: first)
            #expect(after.status == .unauthorized)
            #expect(after.code == "UNAUTHORIZED")
            #expect(try await api.send(.delete, "/apps/checks/sessions/current", token: first).status == .unauthorized)
            #expect(try await api.send(.get, "/apps/checks/settings", token: second).status == .ok)
        }
    }

    @Test("an expired token is 401 TOKEN_EXPIRED", arguments: Backend.available)
    func expiry(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            fixture.clock.advance(by: .seconds(12 * 3600 + 1))
            let reply = try await api.send(.get, "/apps/checks/settings", token: token)
            #expect(reply.status == .unauthorized)
            #expect(reply.code == "TOKEN_EXPIRED")
        }
    }

    @Test("a token of one app does not open another", arguments: Backend.available)
    func otherApp(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try api.expectStatus(
                try await api.admin(.post, "/admin/apps", json: #"{"appID": "other", "name": "Other"}"#),
                .created
            )
            let token = try await api.signIn("alice")
            #expect(try await api.send(.get, "/apps/other/settings", token: token).status == .unauthorized)
        }
    }

    @Test("every character of a long password counts, past bcrypt's 72 bytes")
    func longPassword() async throws {
        try await ServerFixture().runSeeded { api in
            let long = String(repeating: "p", count: 100)
            let created = try await api.admin(
                .post,
                "/admin/users",
                json: #"{"username": "carol", "password": "\#(long)1"}"#
            )
            try api.expectStatus(created, .created)
            #expect(try await api.signInReply("carol", password: long + "2").status == .unauthorized)
            #expect(try await api.signInReply("carol", password: long + "1").status == .created)
        }
    }
}

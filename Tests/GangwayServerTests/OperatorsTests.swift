import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite("Operators of the console and the audit: added with a one-use link, every admin change recorded", .servingTurn)
struct OperatorsTests {
    static func add(_ api: API, _ name: String, role: String) async throws -> Components.Schemas.OperatorEnrolment {
        let reply = try await api.admin(.post, "/admin/operators", json: #"{"name": "\#(name)", "role": "\#(role)"}"#)
        try reply.expect(.created)
        return try reply.decode(Components.Schemas.OperatorEnrolment.self)
    }

    static func audit(_ api: API, _ query: String = "") async throws -> [Components.Schemas.AuditEvent] {
        try await api.admin(.get, "/admin/audit\(query)").decode([Components.Schemas.AuditEvent].self)
    }

    @Test(
        "added, listed, given a new link, a new role, removed; each change once in the audit",
        arguments: Backend.available
    )
    func lifecycle(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let added = try await Self.add(api, "ops.alice", role: "admin")
            #expect(added._operator.name == "ops.alice")
            #expect(added._operator.role == .admin)
            #expect(!added._operator.enrolled)
            let link = try #require(URLComponents(string: added.enrolmentURL))
            #expect(link.path == "/console/enrol")
            let token = try #require(link.queryItems?.first { $0.name == "token" }?.value)
            #expect(token.count == 43)
            #expect(abs(added.expiresAt.timeIntervalSince(fixture.clock.now()) - 86_400) < 2)
            // The link is kept only as its hash.
            let stored = try #require(try await fixture.server.storage.operatorRecord(named: "ops.alice"))
            #expect(stored.enrolmentHash != nil)
            #expect(stored.enrolmentHash != Data(token.utf8))

            let again = try await api.admin(
                .post,
                "/admin/operators",
                json: #"{"name": "ops.alice", "role": "viewer"}"#
            )
            #expect(again.status == .conflict)
            #expect(again.code == "OPERATOR_EXISTS")
            for bad in [
                #"{"name": "", "role": "admin"}"#, #"{"name": "-ops", "role": "admin"}"#,
                #"{"name": "ops alice", "role": "admin"}"#, #"{"name": "ops", "role": "root"}"#,
                #"{"name": "\#(String(repeating: "a", count: 65))", "role": "admin"}"#,
            ] {
                #expect(try await api.admin(.post, "/admin/operators", json: bad).status == .badRequest, "\(bad)")
            }

            let renewed = try await api.admin(.post, "/admin/operators/ops.alice/enrolment")
            try renewed.expect(.ok)
            #expect(try renewed.decode(Components.Schemas.OperatorEnrolment.self).enrolmentURL != added.enrolmentURL)
            #expect(try await api.admin(.post, "/admin/operators/nobody/enrolment").code == "OPERATOR_NOT_FOUND")

            let changed = try await api.admin(.patch, "/admin/operators/ops.alice", json: #"{"role": "viewer"}"#)
            try changed.expect(.ok)
            #expect(try changed.decode(Components.Schemas.Operator.self).role == .viewer)
            #expect(
                try await api.admin(.patch, "/admin/operators/nobody", json: #"{"role": "viewer"}"#).status == .notFound
            )

            let listed = try await api.admin(.get, "/admin/operators").decode([Components.Schemas.Operator].self)
            #expect(listed.map(\.name) == ["ops.alice"])
            #expect(try await api.admin(.delete, "/admin/operators/ops.alice").status == .noContent)
            #expect(try await api.admin(.delete, "/admin/operators/ops.alice").status == .notFound)
            #expect(try await api.send(.get, "/admin/operators").status == .unauthorized)

            // Only what changed something is recorded, once, newest first; reads and refusals are not.
            let events = try await Self.audit(api)
            #expect(
                events.map(\.action) == ["removeOperator", "updateOperator", "enrolOperator", "addOperator"],
                "the seed is the server's own start, no one's action"
            )
            #expect(events.allSatisfy { $0.actor == "admin token" && $0.via == .api })
            #expect(events.first?.target == "/admin/operators/ops.alice")
            #expect(events.first?.address == "127.0.0.1")
            #expect(events.map(\.id) == events.map(\.id).sorted(by: >))
            let page = try await Self.audit(api, "?limit=2&before=\(events[1].id)")
            #expect(page.map(\.action) == ["enrolOperator", "addOperator"])
            for bad in ["?limit=0", "?limit=1001", "?before=0", "?before=x"] {
                #expect(try await api.admin(.get, "/admin/audit\(bad)").status == .badRequest, "\(bad)")
            }
        }
    }

    @Test(
        "users page by name, any case, from where the last page ended; LIKE's wildcards match themselves",
        arguments: Backend.available
    )
    func usersByName(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            for index in 0..<120 {
                try await storage.insertUser(
                    UserRecord(
                        username: String(format: "crew%03d", index),
                        displayName: "Crew \(index)",
                        passwordHash: "x",
                        createdAt: fixture.clock.now()
                    )
                )
            }
            try await storage.insertUser(
                UserRecord(username: "crew_x", displayName: "x", passwordHash: "x", createdAt: fixture.clock.now())
            )
            let first = try await storage.users(prefix: "crew", after: nil, limit: 50)
            #expect(first.map(\.username) == (0..<50).map { String(format: "crew%03d", $0) })
            let later = try await storage.users(prefix: "CREW1", after: "crew109", limit: 50)
            #expect(later.map(\.username) == (110..<120).map { String(format: "crew%03d", $0) })
            #expect(try await storage.users(prefix: "crew_", after: nil, limit: 5).map(\.username) == ["crew_x"])
            #expect(try await storage.users(prefix: "%", after: nil, limit: 5).isEmpty)
            #expect(try await storage.users(prefix: "cr\\", after: nil, limit: 5).isEmpty)
            #expect(try await storage.users(prefix: "", after: "bob", limit: 1).map(\.username) == ["crew000"])
        }
    }

    @Test("the audit keeps no secret: a password set for a user is not in it", arguments: Backend.available)
    func noSecrets(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await api.admin(.patch, "/admin/users/alice", json: #"{"password": "a-new-secret-pw"}"#).expect(.ok)
            let events = try await Self.audit(api)
            #expect(events.first?.action == "updateUser")
            #expect(events.first?.target == "/admin/users/alice")
            let text = try await api.admin(.get, "/admin/audit").text
            #expect(!text.contains("a-new-secret-pw"))
        }
    }
}

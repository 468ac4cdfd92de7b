import Foundation
import GangwayProtocol
import GangwayServerTesting
import GangwayTesting
import Testing

@testable import GangwayServerStorage

@Suite("A provider's people linked to users and operators: one table, one way", .tags(.postgres), .skipsTags)
struct IdentityLinkTests {
    static let issuer = "https://login.example.com"
    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    static func people(_ storage: ServerStorage) async throws {
        try await storage.insertUser(
            UserRecord(username: "alice", displayName: "Alice", passwordHash: "-", createdAt: time)
        )
        try await storage.insertOperator(OperatorRecord(name: "ops.alice", role: .admin, createdAt: time))
    }

    @Test(
        "the links made before, to a user and to an operator, are the same after the schema's move",
        arguments: Backend.available
    )
    func migrated(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend, before: "v17") { storage in
            // The users table as it was then: the record of today has columns added since.
            try await storage.execute(
                """
                INSERT INTO users (username, display_name, password_hash, blocked, created_at)
                VALUES ('alice', 'Alice', '-', \(false), \(Self.time))
                """
            )
            try await storage.insertOperator(OperatorRecord(name: "ops.alice", role: .admin, createdAt: Self.time))
            try await storage.execute(
                """
                INSERT INTO identity_links (issuer, subject, username, created_at)
                VALUES (\(Self.issuer), 's-1', 'alice', \(Self.time))
                """
            )
            try await storage.execute(
                """
                INSERT INTO operator_identities (issuer, subject, operator, created_at)
                VALUES (\(Self.issuer), 's-1', 'ops.alice', \(Self.time))
                """
            )
            try await storage.migrate()
            let user = try await storage.identityLink(issuer: Self.issuer, subject: "s-1", kind: .user)
            #expect(
                user
                    == IdentityLinkRecord(
                        issuer: Self.issuer,
                        subject: "s-1",
                        holder: .user("alice"),
                        createdAt: Self.time
                    )
            )
            let found = try await storage.operatorRecord(issuer: Self.issuer, subject: "s-1")
            #expect(found?.0.holder == .operator("ops.alice"))
            #expect(found?.1.name == "ops.alice")
            #expect(try await storage.linkedIssuers(.operator) == [Self.issuer])
        }
    }

    @Test(
        "a subject is one user and one operator at most; unlinking names its holder; removing an operator removes theirs",
        arguments: Backend.available
    )
    func oneOfEachKind(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await Self.people(storage)
            try await storage.insertUser(
                UserRecord(username: "bob", displayName: "Bob", passwordHash: "-", createdAt: Self.time)
            )
            let alice = IdentityLinkRecord(
                issuer: Self.issuer,
                subject: "s-1",
                holder: .user("alice"),
                createdAt: Self.time
            )
            try await storage.insertIdentityLink(alice)
            // The same person as an operator: another kind, allowed.
            try await storage.insertIdentityLink(
                IdentityLinkRecord(
                    issuer: Self.issuer,
                    subject: "s-1",
                    holder: .operator("ops.alice"),
                    createdAt: Self.time
                )
            )
            // The same person as another user: refused.
            await #expect(throws: StorageError.self) {
                try await storage.insertIdentityLink(
                    IdentityLinkRecord(issuer: Self.issuer, subject: "s-1", holder: .user("bob"), createdAt: Self.time)
                )
            }
            #expect(try await storage.identityLinks(.user, named: ["alice", "bob"]) == [alice])
            #expect(try await storage.identityLinks(.user, named: []) == [])
            #expect(try await storage.identityLinks(.operator).map(\.holder) == [.operator("ops.alice")])
            // Unlinking from the wrong holder, or the wrong kind, removes nothing.
            #expect(try await !storage.deleteIdentityLink(issuer: Self.issuer, subject: "s-1", holder: .user("bob")))
            #expect(
                try await !storage.deleteIdentityLink(issuer: Self.issuer, subject: "s-1", holder: .operator("alice"))
            )
            #expect(try await storage.deleteIdentityLink(issuer: Self.issuer, subject: "s-1", holder: .user("alice")))
            #expect(try await storage.identityLink(issuer: Self.issuer, subject: "s-1", kind: .user) == nil)
            #expect(try await storage.deleteOperator(named: "ops.alice"))
            #expect(try await storage.identityLinks(.operator).isEmpty)
            #expect(try await storage.linkedIssuers(.operator).isEmpty)
        }
    }
}

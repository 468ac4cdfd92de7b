import Foundation
import GangwayPolicy
import GangwayServer
import GangwayServerTesting
import HTTPTypes
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("TestServer: a seeded server on a loopback port", .servingTurn)
struct TestServerTests {
    /// The databases to run against, by name: the PostgreSQL URL may hold a password.
    static let databases = TestDatabase.available.map(\.name)

    static func database(named name: String) throws -> TestDatabase {
        try #require(TestDatabase.available.first { $0.name == name })
    }

    @Test("starts on a free port with the seed's apps, users and data", arguments: databases)
    func startsSeeded(database: String) async throws {
        let seed = ServerSeed(
            apps: [.checks],
            users: [.alice, .bob],
            entities: [
                SeedEntity(app: "checks", entitySet: "checks", id: "F-GKXA-fuel", fields: ["status": "open"])
            ]
        )
        let options = TestServer.Options(database: try Self.database(named: database))
        try await TestServer.run(seed: seed, options: options) { server in
            #expect(server.port > 0)
            #expect(server.url.absoluteString == "http://127.0.0.1:\(server.port)")
            #expect(server.pinnedActivationKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
            #expect(try await server.activationKeyPEM() == server.pinnedActivationKeyPEM)

            let apps = try await server.admin(.get, "/admin/apps")
            #expect(apps.text.contains(#""appID":"checks""#))
            let users = try await server.admin(.get, "/admin/users")
            #expect(users.text.contains(#""username":"alice""#) && users.text.contains(#""username":"bob""#))
            let data = try await server.admin(.get, "/admin/apps/checks/data/checks")
            #expect(data.text.contains("F-GKXA-fuel"))

            let signIn = try await server.send(
                .post,
                "/apps/checks/sessions",
                json: #"{"username": "alice", "password": "alice-password", "deviceID": "d1"}"#
            )
            #expect(signIn.status == .created)
        }
    }

    @Test("an admin call without a 2xx answer throws, naming the call and the answer")
    func adminCallRefused() async throws {
        try await TestServer.run { server async throws in
            let error = await #expect(throws: TestServerError.self) {
                try await server.admin(.get, "/admin/apps/nowhere")
            }
            #expect(error?.description.contains("GET /admin/apps/nowhere: 404") == true)
            #expect(error?.description.contains(server.adminToken) == false)
            // A raw call returns whatever the server answers.
            #expect(try await server.send(.get, "/admin/apps").status == .unauthorized)
        }
    }

    @Test("a seed with a bad value fails with the item and the reason, never the password")
    func badSeed() async throws {
        let short = SeedUser("carol", password: "short7!")
        let error = await #expect(throws: SeedError.invalidValue) {
            try await TestServer.run(seed: ServerSeed(apps: [.checks], users: [short])) { _ in }
        }
        #expect(error?.item == "user carol")
        #expect(error?.description.contains("INVALID_PASSWORD") == true)
        #expect(error?.description.contains("short7!") == false)
        #expect(!String(describing: short).contains("short7!"))

        let domain = SeedApp(id: "gates", name: "Gates", emailDomains: ["not a domain"])
        await #expect(throws: SeedError.invalidValue) {
            try await TestServer.run(seed: ServerSeed(apps: [domain])) { _ in }
        }
        let orphan = SeedEntity(app: "nowhere", entitySet: "checks", id: "one", fields: [:])
        await #expect(throws: SeedError.invalidValue) {
            try await TestServer.run(seed: ServerSeed(entities: [orphan])) { _ in }
        }
    }

    @Test("seeding an app twice says the app exists")
    func seedTwice() async throws {
        try await TestServer.run(seed: .checks) { server in
            await #expect(throws: SeedError.appExists) {
                try await server.seed(ServerSeed(apps: [.checks]))
            }
            await #expect(throws: SeedError.userExists) {
                try await server.seed(ServerSeed(users: [.alice]))
            }
        }
    }

    @Test("stops when the closure returns or throws, and serves again on a new run")
    func stops() async throws {
        let server = try await TestServer()
        defer { server.removeDirectory() }
        let first = try await server.run(seed: .checks) { running in running.url }
        await #expect(throws: (any Error).self) {
            _ = try await URLSession.shared.data(from: first.appendingPathComponent("health"))
        }
        struct Stop: Error {}
        let thrown = Mutex<URL?>(nil)
        await #expect(throws: Stop.self) {
            try await server.run { running in
                thrown.withLock { $0 = running.url }
                throw Stop()
            }
        }
        let second = try #require(thrown.withLock { $0 })
        await #expect(throws: (any Error).self) {
            _ = try await URLSession.shared.data(from: second.appendingPathComponent("health"))
        }
        // The data outlives the runs.
        try await server.run { running async throws in
            #expect(try await running.admin(.get, "/admin/apps/checks").status == .ok)
        }
    }
}

@Suite("A test database never shows its URL")
struct TestDatabaseDescriptionTests {
    @Test func thePasswordInAPostgreSQLURLIsNeverPrinted() {
        let database = TestDatabase.postgresql(url: "postgres://gangway:Secret-PG-Password@127.0.0.1:5432/gangway")
        for text in ["\(database)", String(describing: database), String(reflecting: database)] {
            #expect(!text.contains("Secret-PG-Password"))
            #expect(text == "postgresql")
        }
    }
}

import Foundation
import GangwayServer
import GangwayServerStorage
import Logging
import Testing

@testable import GangwayServerTesting

/// Test servers leave nothing on the machine: a run removes its data directory and drops
/// its PostgreSQL schema, and what a test process that ended without cleaning up left is
/// removed by the next one.
@Suite("Test servers leave nothing behind")
struct TestLeftoversTests {
    static let databases = TestDatabase.available.map(\.name)

    /// The schemas of the database at `url` whose names start with `prefix`.
    static func schemas(_ url: String, prefix: String) async throws -> [String] {
        var seen: [String] = []
        try await PostgresDriver(url: url, logger: Logger(label: "test")).dropSchemas(prefix: prefix) { name in
            seen.append(name)
            return false
        }
        return seen
    }

    /// The ID of a process that has ended.
    static func endedProcess() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test("a run removes its data directory and drops its schema", arguments: databases)
    func aRunRemovesWhatItMade(database name: String) async throws {
        let database = try #require(TestDatabase.available.first { $0.name == name })
        let (directory, postgresURL) = try await TestServer.run(options: .init(database: database)) { running in
            (running.server.configuration.dataDirectory, running.server.configuration.postgresURL)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        #expect(
            directory.deletingLastPathComponent().standardizedFileURL.path
                == TestLeftovers.directory.standardizedFileURL.path
        )
        if case .postgresql(let url) = database {
            let schema = try #require(postgresURL?.components(separatedBy: "schema=").last)
            #expect(TestLeftovers.owner(ofSchema: schema) == getpid())
            #expect(try await Self.schemas(url, prefix: schema).isEmpty)
        }
    }

    @Test("an ended process's directory is removed; a running one's stays")
    func endedProcessesDirectories() throws {
        let temporary = FileManager.default.temporaryDirectory
        let ended = temporary.appendingPathComponent(TestLeftovers.directoryPrefix + String(try Self.endedProcess()))
        try FileManager.default.createDirectory(
            at: ended.appendingPathComponent("server-x"),
            withIntermediateDirectories: true
        )
        try TestLeftovers.prepareDirectory()
        TestLeftovers.removeEndedProcessesDirectories()
        #expect(!FileManager.default.fileExists(atPath: ended.path))
        #expect(FileManager.default.fileExists(atPath: TestLeftovers.directory.path))
    }

    @Test(
        "an ended process's schema is dropped; a running one's, another machine's and another program's stay",
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs GANGWAY_POSTGRES_URL")
    )
    func endedProcessesSchemas() async throws {
        guard case .postgresql(let url)? = TestDatabase.postgresqlFromEnvironment else { return }
        let ended = try Self.endedProcess()
        let id = { UUID().uuidString.prefix(8).lowercased() }
        let endedSchema = "test_\(TestLeftovers.machine)_\(ended)_\(id())"
        let runningSchema = TestLeftovers.newSchema()
        let otherMachine = TestLeftovers.machine == "00000000" ? "00000001" : "00000000"
        let otherMachinesSchema = "test_\(otherMachine)_\(ended)_\(id())"
        let otherSchema = "test_other_\(id())"
        for schema in [endedSchema, runningSchema, otherMachinesSchema, otherSchema] {
            let storage = ServerStorage(
                try PostgresDriver(
                    url: url + (url.contains("?") ? "&" : "?") + "schema=\(schema)",
                    logger: Logger(label: "test")
                )
            )
            try await storage.withConnections { try await storage.migrate() }
        }
        await TestLeftovers.dropEndedProcessesSchemas(url: url)
        #expect(try await Self.schemas(url, prefix: endedSchema).isEmpty)
        #expect(try await Self.schemas(url, prefix: runningSchema) == [runningSchema])
        #expect(try await Self.schemas(url, prefix: otherMachinesSchema) == [otherMachinesSchema])
        #expect(try await Self.schemas(url, prefix: otherSchema) == [otherSchema])
        for schema in [runningSchema, otherMachinesSchema, otherSchema] {
            await TestLeftovers.drop(schema: schema, url: url)
            #expect(try await Self.schemas(url, prefix: schema).isEmpty)
        }
    }
}

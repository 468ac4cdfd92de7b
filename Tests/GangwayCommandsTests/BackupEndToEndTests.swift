import Foundation
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import NIOHTTP1
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `gangway admin backup` of a serving SQLite server, and `gangway serve --restore`; and
/// PostgreSQL's own `pg_dump` and `pg_restore`, as the README tells an operator to run them.
@Suite(
    "Backups: taken while writes go on, holding every acknowledged write, restored into a new directory",
    .tags(.endToEnd),
    .skipsTags
)
struct BackupEndToEndTests {
    typealias Call = DestinationStreamingEndToEndTests

    /// The IDs of the `checks` set's entities on the server at `url`, read page by page.
    static func entityIDs(_ url: String, token: String) async throws -> Set<String> {
        var ids: Set<String> = []
        var after: String?
        while true {
            let page = try await Call.call(
                .GET,
                url + "/admin/apps/checks/data/checks?limit=1000" + (after.map { "&after=\($0)" } ?? ""),
                token: token
            )
            #expect(page.status == 200, "\(page)")
            let entities = page.body["entities"] as? [[String: Any]] ?? []
            ids.formUnion(entities.compactMap { $0["id"] as? String })
            guard page.body["more"] as? Bool == true, let last = entities.last?["id"] as? String else { return ids }
            after = last
        }
    }

    /// The admin token in `file`.
    static func token(_ file: String) throws -> String {
        try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "a backup taken while an admin writes holds every write acknowledged before it began, and serves once restored"
    )
    func backupUnderWrites() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-backup")
        defer { directory.remove() }
        let data = directory.appending("server")
        let serve = try await ServeProcess(["--demo", "--log-level", "warning"], in: data)
        defer { serve.stop() }
        let token = try Self.token(serve.tokenFile)
        let before = try await Self.entityIDs(serve.url, token: token)

        // One write after another, each acknowledged before the next; when each was.
        let acknowledged = Acknowledged()
        let url = serve.url
        let writer = Task {
            var index = 0
            while !acknowledged.stopped {
                let id = String(format: "W-%05d", index)
                let put = try await Call.call(
                    .PUT,
                    url + "/admin/apps/checks/data/checks/\(id)",
                    token: token,
                    json: #"{"fields": {"status": "open", "item": "written \#(index)"}}"#
                )
                guard put.status == 201 else { throw ServeShutdownEndToEndTests.Refusal("\(put)") }
                acknowledged.add(id)
                index += 1
            }
        }
        // Writes before the backup, however slowly a loaded machine makes them.
        #expect(try await eventually(within: .seconds(60)) { acknowledged.count >= 20 })
        let backup = directory.appending("backups").appendingPathComponent("server.sqlite")
        try PrivateFiles.makeDirectory(backup.deletingLastPathComponent())
        let started = ContinuousClock.now
        let made = try await GangwayProcess(deviceKeys: directory.appending("keys")).run(
            ["admin", "backup", backup.path, "--data-dir", data.path]
        )
        let countAfterBackup = acknowledged.count
        #expect(try await eventually(within: .seconds(60)) { acknowledged.count >= countAfterBackup + 10 })
        acknowledged.stop()
        try await writer.value
        #expect(made.status == 0, "\(made.standardError)")
        #expect(made.output.contains("cannot be read without the server key"), "\(made.output)")
        #expect(PrivateFiles.mode(of: backup.path) == 0o600)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: backup.deletingLastPathComponent().path)
                == [backup.lastPathComponent],
            "no log, journal or partial copy is left beside the backup"
        )
        let writes = acknowledged.writes
        let beforeBackup = Set(writes.filter { $0.at < started }.map(\.id))
        #expect(beforeBackup.count >= 20)

        // Restored into a new directory, with the server's key and admin token.
        let restored = directory.appending("restored")
        try PrivateFiles.makeDirectory(restored)
        for name in ["server-key", "admin-token"] {
            try PrivateFiles.write(
                try Data(contentsOf: data.appendingPathComponent(name)),
                to: restored.appendingPathComponent(name)
            )
        }
        let second = try await ServeProcess(["--restore", backup.path, "--log-level", "warning"], in: restored)
        defer { second.stop() }
        #expect(second.printed.contains("Restored \(backup.path)"), "\(second.printed)")
        #expect(second.printed.contains("Admin token: in "), "its admin token copied with it: \(second.printed)")
        let ids = try await Self.entityIDs(second.url, token: token)
        let written = ids.subtracting(before)
        #expect(beforeBackup.isSubset(of: written), "every write acknowledged before the backup began is in it")
        // One snapshot: the writes it holds are the first ones, none missing between.
        let order = writes.map(\.id)
        #expect(written == Set(order.prefix(written.count)), "the backup holds a prefix of the writes")
        #expect(written.count < order.count, "writes after the backup are not in it")
        // The restored server signs in the demo's people: its sealed keys opened.
        let session = try await Call.call(
            .POST,
            second.url + "/apps/checks/sessions",
            json: #"{"username": "alice", "password": "preflight-alice", "deviceID": "stand-9"}"#
        )
        #expect(session.status == 201, "\(session)")
    }

    @Test("a backup is refused over an existing file, in a directory others can write, and where there is no database")
    func backupRefusals() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-backup")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let data = directory.appending("server")
        let serve = try await ServeProcess(["--log-level", "warning"], in: data)
        serve.stop()
        let taken = directory.appending("taken.sqlite")
        try Data("mine".utf8).write(to: taken)
        let open = directory.appending("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o777)
        for (arguments, message) in [
            ([taken.path, "--data-dir", data.path], "exists; a backup never replaces a file"),
            ([open.appendingPathComponent("b.sqlite").path, "--data-dir", data.path], "others can write to it"),
            ([open.path, "--data-dir", data.path], "is a directory; name a backup file"),
            (
                [directory.appending("typo/b.sqlite").path, "--data-dir", data.path],
                "there is no directory \(directory.appending("typo").path) to write the backup in"
            ),
            (
                [directory.appending("b.sqlite").path, "--data-dir", directory.appending("none").path],
                "no SQLite database"
            ),
        ] {
            let result = try await runner.run(["admin", "backup"] + arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
            #expect(!result.standardError.contains("Fatal"), "\(result.standardError)")
        }
        #expect(try String(contentsOf: taken, encoding: .utf8) == "mine", "the file is as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: open.path).isEmpty, "nothing left behind")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("b.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("typo").path), "no directory made")
    }

    @Test(
        "a restore is refused, writing nothing, without the key, with another key, over a database, from a file that is no backup, and with --postgres"
    )
    func restoreRefusals() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-restore")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let data = directory.appending("server")
        let serve = try await ServeProcess(["--log-level", "warning"], in: data)
        serve.stop()
        let backup = directory.appending("b.sqlite")
        #expect(try await runner.run(["admin", "backup", backup.path, "--data-dir", data.path]).status == 0)
        let other = directory.appending("other-key")
        try PrivateFiles.write(Data((0..<32).map { _ in UInt8.random(in: 0...255) }), to: other)
        let notABackup = directory.appending("notes.txt")
        try Data("not a database".utf8).write(to: notABackup)
        let target = directory.appending("new")
        for (arguments, message, status) in [
            (["--restore", backup.path], "is missing: copy that server's key file there", Int32(1)),
            (["--restore", backup.path, "--key-file", other.path], "is not the server key", 1),
            (["--restore", notABackup.path], "is not a Gangway backup", 1),
            (["--restore", directory.appending("absent").path], "there is no backup file", 1),
            (["--restore", ""], "--restore must name a backup file", 64),
            (["--restore", directory.url.path], "is a directory; name a backup file", 1),
            (["--restore", backup.path, "--postgres", "postgres://gangway@127.0.0.1:1/g"], "pg_restore", 64),
        ] {
            let result = try await runner.run(["serve", "--port", "0", "--data-dir", target.path] + arguments)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: target.path), "\(arguments): nothing written")
        }
        // With the key but not the admin-token file: restored, and told where the token is.
        let keyOnly = directory.appending("key-only")
        try PrivateFiles.makeDirectory(keyOnly)
        try PrivateFiles.write(
            try Data(contentsOf: data.appendingPathComponent("server-key")),
            to: keyOnly.appendingPathComponent("server-key")
        )
        let restored = try await ServeProcess(["--restore", backup.path, "--log-level", "warning"], in: keyOnly)
        restored.stop()
        #expect(
            restored.printed.contains("Admin token: the backed-up server's, which ")
                && restored.printed.contains("copy that server's admin-token file here"),
            "\(restored.printed)"
        )
        // Over the server's own database.
        let over = try await runner.run(["serve", "--port", "0", "--data-dir", data.path, "--restore", backup.path])
        #expect(over.status == 1)
        #expect(over.standardError.contains("holds a database already"), "\(over.standardError)")
    }

    /// What a PostgreSQL backup covers: the schema of the URL's `schema=`, or the whole
    /// database when the server keeps its tables in `public` (no `schema=`).
    enum DumpScope: String, CaseIterable, Sendable {
        case schema
        case database
    }

    @Test(
        "PostgreSQL: pg_dump of the schema (or the whole database) while it serves, it lost, pg_restore, and the server serves what was written",
        .tags(.postgres),
        .enabled(if: TestDatabase.postgresqlFromEnvironment != nil, "needs \(TestDatabase.environmentVariable)"),
        .enabled(
            if: ["pg_dump", "pg_restore", "psql"].allSatisfy { ExternalTool($0).executable != nil },
            "needs pg_dump, pg_restore and psql (Debian: postgresql-client)"
        ),
        arguments: DumpScope.allCases
    )
    func postgresDumpAndRestore(scope: DumpScope) async throws {
        guard case .postgresql(let url) = TestDatabase.postgresqlFromEnvironment else { return }
        let base = url.components(separatedBy: "?").first ?? url
        switch scope {
        case .schema:
            try await TestDatabase.withNewPostgresSchema(of: url) { schemaURL in
                let schema = try #require(schemaURL.components(separatedBy: "schema=").last)
                // As the README says: the schema, in pg_dump's own format, while it serves;
                // the schema lost, then restored into the database.
                try await Self.dumpAndRestore(
                    serving: schemaURL,
                    dump: ["--schema=\(schema)", base],
                    lose: [base, "-c", "DROP SCHEMA \(schema) CASCADE"],
                    restoreInto: base
                )
            }
        case .database:
            // A database of its own, whose tables are in public: the whole of it dumped,
            // the database lost, and restored into a new one of the same name.
            let name = "gangway_dump_" + UUID().uuidString.prefix(8).lowercased()
            let root = String(base[..<(base.lastIndex(of: "/") ?? base.endIndex)])
            let database = root + "/" + name
            #expect(try await Self.run("psql", [base, "-c", "CREATE DATABASE \(name)"]) == 0)
            let dropped = {
                _ = try? await Self.run("psql", [base, "-c", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"])
            }
            do {
                try await Self.dumpAndRestore(
                    serving: database,
                    dump: [database],
                    lose: [base, "-c", "DROP DATABASE \(name) WITH (FORCE)", "-c", "CREATE DATABASE \(name)"],
                    restoreInto: database
                )
            } catch {
                await dropped()
                throw error
            }
            await dropped()
        }
    }

    /// Serves `url` with the demo's data and 30 more checks; `pg_dump --format=custom`
    /// with `dump`'s arguments while it serves; stops it; `psql` with `lose`'s (a URL
    /// and the statements that lose what was backed up); `pg_restore` into `restoreInto`; and serves `url` again,
    /// expecting every check written and a sign-in.
    private static func dumpAndRestore(
        serving url: String,
        dump: [String],
        lose: [String],
        restoreInto target: String
    ) async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-pgdump")
        defer { directory.remove() }
        let data = directory.appending("server")
        let common = ["--postgres", url, "--log-level", "warning"]
        var serve = try await ServeProcess(common + ["--demo"], in: data)
        let token = try Self.token(serve.tokenFile)
        for index in 0..<30 {
            let put = try await Call.call(
                .PUT,
                serve.url + "/admin/apps/checks/data/checks/P-\(index)",
                token: token,
                json: #"{"fields": {"status": "open"}}"#
            )
            #expect(put.status == 201)
        }
        let written = try await Self.entityIDs(serve.url, token: token)
        let file = directory.appending("gangway.dump")
        #expect(try await Self.run("pg_dump", ["--format=custom", "--file", file.path] + dump) == 0)
        serve.stop()
        #expect(try await Self.run("psql", lose) == 0)
        #expect(try await Self.run("pg_restore", ["--dbname", target, file.path]) == 0)
        serve = try await ServeProcess(common, in: data)
        defer { serve.stop() }
        #expect(try await Self.entityIDs(serve.url, token: token) == written)
        let session = try await Call.call(
            .POST,
            serve.url + "/apps/checks/sessions",
            json: #"{"username": "alice", "password": "preflight-alice", "deviceID": "stand-9"}"#
        )
        #expect(session.status == 201, "\(session)")
    }

    /// The writes acknowledged, in order, each with when it was; and whether to stop.
    final class Acknowledged: Sendable {
        private let state = Mutex<(writes: [(id: String, at: ContinuousClock.Instant)], stopped: Bool)>(([], false))

        func add(_ id: String) { state.withLock { $0.writes.append((id, ContinuousClock.now)) } }
        func stop() { state.withLock { $0.stopped = true } }
        var stopped: Bool { state.withLock { $0.stopped } }
        var count: Int { state.withLock { $0.writes.count } }
        var writes: [(id: String, at: ContinuousClock.Instant)] { state.withLock { $0.writes } }
    }

    /// Runs a PostgreSQL client program; its exit status.
    private static func run(_ tool: String, _ arguments: [String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(ExternalTool(tool).executable))
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await process.exit(within: .seconds(120))
        return process.terminationStatus
    }
}

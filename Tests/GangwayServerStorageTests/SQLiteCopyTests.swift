import Foundation
import GRDB
import GangwayTesting
import Synchronization
import Testing

@testable import GangwayServerStorage

@Suite("A SQLite database's copy: one snapshot, taken in paced steps while another connection writes")
struct SQLiteCopyTests {
    /// A database in WAL mode, as a server's is, with `rows` rows of 400 bytes.
    private static func database(at file: URL, rows: Int) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: file.path)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE rows (id INTEGER PRIMARY KEY, value BLOB NOT NULL)")
        }
        try queue.write { db in
            for _ in 0..<rows {
                try db.execute(sql: "INSERT INTO rows (value) VALUES (randomblob(400))")
            }
        }
        return queue
    }

    @Test(
        "a copy one page a step ends while another connection writes between its steps, and holds the rows written before it began, in one file"
    )
    func copyWhileWriting() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-copy")
        defer { directory.remove() }
        let source = directory.appending("source.sqlite")
        let writer = try Self.database(at: source, rows: 2_000)
        let copied = Mutex(false)
        // One write after another until the copy has ended, or 20,000 of them: a copy that
        // started over at each write would end only after the last, holding every row.
        let writes = Task.detached {
            var count = 0
            while !copied.withLock({ $0 }), count < 20_000 {
                try await writer.write { db in
                    try db.execute(sql: "INSERT INTO rows (value) VALUES (randomblob(400))")
                }
                count += 1
            }
            return count
        }
        #expect(
            try await eventually(within: .seconds(60)) {
                try await writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM rows") ?? 0 } > 2_010
            }
        )
        let before = try await writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM rows") ?? 0 }
        let target = directory.appending("copy.sqlite")
        // Each step a page, and a rest as long: the copy spans many of the writer's writes,
        // each of which would start a copy outside one transaction over.
        try await onOwnThread {
            try SQLiteDriver.copy(source, into: target, pace: .init(pagesPerStep: 1, restPerWork: 1))
        }
        copied.withLock { $0 = true }
        let written = try await writes.value
        let after = try await writer.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM rows") ?? 0 }
        try writer.close()

        var configuration = Configuration()
        configuration.readonly = true
        let copy = try DatabaseQueue(path: target.path, configuration: configuration)
        defer { try? copy.close() }
        let (check, mode, ids) = try await copy.read { db in
            (
                try String.fetchAll(db, sql: "PRAGMA integrity_check"),
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchAll(db, sql: "SELECT id FROM rows ORDER BY id")
            )
        }
        #expect(check == ["ok"])
        #expect(mode == "delete", "the copy is one file, with no log beside it")
        #expect(ids.count >= before, "every row written before the copy began is in it")
        #expect(ids == Array(1...ids.count), "one snapshot: the first rows written, none missing between")
        #expect(after > ids.count && written > 0, "rows were written while the copy ran, and are not in it")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted().filter {
                $0.hasPrefix("copy")
            } == ["copy.sqlite"]
        )
    }

    @Test("a pace of no pages a step copies all in one, and a rest that is not a positive number is none")
    func paceBounds() {
        #expect(SQLiteDriver.CopyPace(pagesPerStep: 0, restPerWork: -1) == .fullSpeed)
        #expect(SQLiteDriver.CopyPace(pagesPerStep: -7, restPerWork: .nan) == .fullSpeed)
        #expect(SQLiteDriver.CopyPace(pagesPerStep: 16, restPerWork: .infinity).restPerWork == 0)
        #expect(SQLiteDriver.CopyPace(pagesPerStep: 16, restPerWork: 1) == .sharing)
    }

    @Test("a copy of a database that cannot be read, or into a place that cannot be written, fails as unavailable")
    func copyFailures() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-copy")
        defer { directory.remove() }
        let source = directory.appending("source.sqlite")
        try Self.database(at: source, rows: 10).close()
        let nowhere = directory.appending("missing").appendingPathComponent("copy.sqlite")
        let missing = directory.appending("absent.sqlite")
        for (from, to) in [(source, nowhere), (missing, directory.appending("copy.sqlite"))] {
            let error = #expect(throws: StorageError.self) {
                try SQLiteDriver.copy(from, into: to, readOnly: from == missing, pace: .sharing)
            }
            #expect(error?.code == .unavailable)
        }
    }
}

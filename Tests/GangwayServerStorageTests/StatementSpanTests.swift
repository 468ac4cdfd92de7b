import Foundation
import GangwayTesting
import InMemoryTracing
import Testing
import Tracing

@testable import GangwayServerStorage

/// Statements as spans (``TracedDriver``): inside a span, each statement is one, named by
/// its kind and table and never its values; a transaction holds its statements; outside
/// any span (the server's start, its background looks) none is made; and a failure is
/// recorded on its span and thrown on as it was.
@Suite("Statements as spans: named by kind and table, inside the caller's span, values never")
struct StatementSpanTests {
    @Test(
        "a statement's summary: its keyword and table, whatever its values or layout",
        arguments: [
            ("SELECT name FROM users WHERE username = ?", "SELECT users"),
            ("select id, name\n  from \"apps\" a JOIN app_domains d ON d.app_id = a.id", "SELECT apps"),
            ("INSERT INTO sessions (token) VALUES (?)", "INSERT sessions"),
            ("INSERT OR IGNORE INTO entity_sets (app_id) VALUES (?)", "INSERT entity_sets"),
            ("UPDATE devices SET locked = 1 WHERE id = ?", "UPDATE devices"),
            ("DELETE FROM activity WHERE at < ?", "DELETE activity"),
            ("WITH recent AS (SELECT * FROM activity) SELECT count(*) FROM recent", "WITH"),
            ("SELECT 1 AS answered", "SELECT"),
            ("SELECT count(*) FROM (SELECT id FROM users) AS counted", "SELECT"),
            ("BEGIN IMMEDIATE", "BEGIN"),
            ("", "SQL"),
            ("replace into \"entity_sets\" (a) values (?)", "REPLACE entity_sets"),
            ("UPDATE\t\"users\"\tSET a = ?", "UPDATE users"),
            ("SELECT * FROM users2 WHERE a.b = 1", "SELECT users2"),
            ("DELETE FROM", "DELETE"),
            ("  ;; select x fRoM _private", "SELECT _private"),
        ]
    )
    func summary(text: String, expected: String) {
        #expect(SQL(stringLiteral: text).summary.description == expected)
    }

    @Test("10,000 random statements read the same as by a reference that splits the text into words")
    func summaryMatchesReference() {
        var random = SeededRandom(seed: 57)
        let vocabulary = [
            "SELECT", "select", "Select", "INSERT", "insert", "INTO", "into", "UPDATE", "update", "DELETE",
            "FROM", "from", "FrOm", "REPLACE", "WITH", "users", "\"apps\"", "entity_sets", "t1", "_x", "1",
            "(", ")", "count(*)", "a.b", "*", ",", "=", "?", ";", "'text'", "\"", "é", "naïve", "--", "\n", "\t",
            " ", "  ",
        ]
        for _ in 0..<10_000 {
            var statement = SQL(stringLiteral: "")
            for _ in 0..<Int.random(in: 0...9, using: &random) {
                if random.chance(10) {
                    statement.parts.append(.value(.text("FROM secrets")))
                } else {
                    let words = (0..<Int.random(in: 1...4, using: &random)).map { _ in random.pick(vocabulary) }
                    statement.parts.append(.text(words.joined(separator: random.pick([" ", "", "\n"]))))
                }
            }
            #expect(statement.summary == Self.referenceSummary(statement), "\(statement.parts)")
        }
    }

    /// The summary as the first version read it: the text with values as ` ? `, split
    /// into words of letters, digits and `_ . " (`, the keyword found among them.
    static func referenceSummary(_ statement: SQL) -> SQL.Summary {
        var text = ""
        for part in statement.parts {
            guard text.utf8.count < 400 else { break }
            switch part {
            case .text(let fragment): text += fragment
            case .value: text += " ? "
            }
        }
        let words = text.split(whereSeparator: { !($0.isLetter || $0.isNumber || "_.\"(".contains($0)) })
        guard let first = words.first?.uppercased() else { return SQL.Summary(operation: "SQL") }
        let after: String? =
            switch first {
            case "SELECT", "DELETE": "FROM"
            case "INSERT", "REPLACE": "INTO"
            case "UPDATE": "UPDATE"
            default: nil
            }
        guard let after, let index = words.firstIndex(where: { $0.uppercased() == after }),
            words.index(after: index) < words.endIndex
        else { return SQL.Summary(operation: first) }
        let name = words[words.index(after: index)].filter { $0 != "\"" }
        guard let start = name.first, start.isLetter || start == "_", !name.contains("(") else {
            return SQL.Summary(operation: first)
        }
        return SQL.Summary(operation: first, table: String(name))
    }

    @Test("a value is never read into a summary, not even one that looks like SQL")
    func valuesStayOut() {
        let name = "x FROM secrets"
        let statement: SQL = "SELECT \(name) AS shown FROM users WHERE username = \(name)"
        #expect(statement.summary == SQL.Summary(operation: "SELECT", table: "users"))
        let leading: SQL = "\(name) FROM devices"
        #expect(leading.summary.table == nil)
    }

    /// A migrated SQLite storage in `directory` whose statements' spans go to the tracer
    /// returned.
    static func storage(in directory: TemporaryDirectory) async throws -> (ServerStorage, InMemoryTracer) {
        let tracer = InMemoryTracer()
        let storage = ServerStorage(
            try SQLiteDriver(path: directory.appending("server.sqlite").path),
            tracer: ServerTracer(tracer)
        )
        try await storage.migrate()
        return (storage, tracer)
    }

    @Test("inside a span: a span per statement and per transaction, with OpenTelemetry's attributes; outside: none")
    func spans() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-spans")
        defer { directory.remove() }
        let (storage, tracer) = try await Self.storage(in: directory)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await storage.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: now))
        _ = try await storage.apps()
        #expect(tracer.finishedSpans.isEmpty, "\(tracer.finishedSpans.map(\.operationName))")

        try await tracer.withSpan("request") { _ in
            _ = try await storage.apps()
            try await storage.insertApp(AppRecord(id: "rounds", name: "Rounds", createdAt: now))
        }
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "request" })
        let read = try #require(spans.first { $0.operationName == "SELECT apps" })
        #expect(read.parentSpanID == request.spanID && read.kind == .client)
        #expect(read.attributes["db.system.name"]?.toSpanAttribute() == "sqlite")
        #expect(read.attributes["db.operation.name"]?.toSpanAttribute() == "SELECT")
        #expect(read.attributes["db.collection.name"]?.toSpanAttribute() == "apps")
        let transaction = try #require(spans.first { $0.operationName == "transaction" })
        #expect(transaction.parentSpanID == request.spanID)
        let inside = spans.filter { $0.parentSpanID == transaction.spanID }.map(\.operationName)
        #expect(inside == ["INSERT apps", "DELETE app_domains"], "\(inside)")
        // No attribute holds a value the statements bound.
        let attributes = spans.map { "\($0.attributes)" }.joined()
        #expect(!attributes.contains("Rounds") && !attributes.contains("rounds"), "\(attributes)")
    }

    @Test("a statement that fails: its span and its transaction's record the error, which the caller gets as it was")
    func failures() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-spans")
        defer { directory.remove() }
        let (storage, tracer) = try await Self.storage(in: directory)
        let app = AppRecord(id: "checks", name: "Checks", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        try await storage.insertApp(app)
        let thrown: StorageError? = await tracer.withSpan("request") { _ in
            do throws(StorageError) {
                try await storage.insertApp(app)
                return nil
            } catch {
                return error
            }
        }
        #expect(thrown?.code == .duplicate, "\(String(describing: thrown))")
        let spans = tracer.finishedSpans
        let insert = try #require(spans.first { $0.operationName == "INSERT apps" })
        #expect(insert.status?.code == .error && insert.errors.count == 1)
        let transaction = try #require(spans.first { $0.operationName == "transaction" })
        #expect(transaction.status?.code == .error)
        #expect(transaction.errors.first?.error is StorageError)
    }

    @Test("inside a span no one records (a trace the sampler left out), no span is made, unless one starts a trace")
    func unrecordedChildren() async {
        let tracer = ServerTracer(NoOpTracer())
        let inner: (child: Bool, recorded: Bool, root: Bool) = await tracer.withSpan("request") { outer in
            #expect(outer != nil, "the trace's first span is made, for its context")
            let child = await tracer.withSpan("SELECT users") { span in span != nil }
            let root = await tracer.withSpan("delivery", context: .topLevel) { span in span != nil }
            return (child, ServerTracer.inRecordedSpan, root)
        }
        #expect(!inner.child && !inner.recorded && inner.root)
        let recording = ServerTracer(InMemoryTracer())
        let recorded = await recording.withSpan("request") { _ in
            await recording.withSpan("SELECT users") { span in span != nil && ServerTracer.inRecordedSpan }
        }
        #expect(recorded)
    }
}

import ServiceLifecycle
import Tracing

/// A driver whose statements are spans: each read and write a client span named by its
/// kind and table (`SELECT users`, ``SQL/summary``), each transaction a span with one
/// per statement inside it. Spans carry the database (`db.system.name`), the operation
/// and the table, never a statement's values.
///
/// Only a statement run inside a recorded span (a request's, a data source read's, a
/// delivery's) is one: the server's start and its background looks (a poll for due
/// deliveries five times a second) would each be a trace of one statement, saying
/// nothing, and a trace the sampler left out records none.
struct TracedDriver: StorageDriver {
    let driver: any StorageDriver
    let tracer: ServerTracer

    var kind: StorageKind { driver.kind }
    var connectionFigures: ConnectionFigures? { driver.connectionFigures }

    func migrate(_ migrations: [Migration]) async throws(StorageError) { try await driver.migrate(migrations) }
    func makeConnectionPool() -> (any Service)? { driver.makeConnectionPool() }
    func announce(_ notice: String) async throws(StorageError) { try await driver.announce(notice) }

    func makeNoticeListener(_ hear: @escaping @Sendable (StorageNotice) -> Void) -> (any Service)? {
        driver.makeNoticeListener(hear)
    }

    func read(_ statement: SQL) async throws(StorageError) -> [SQLRow] {
        try await Self.span(statement, kind: kind, tracer) { () async throws(StorageError) in
            try await driver.read(statement)
        }
    }

    func write(_ statement: SQL) async throws(StorageError) -> [SQLRow] {
        try await Self.span(statement, kind: kind, tracer) { () async throws(StorageError) in
            try await driver.write(statement)
        }
    }

    func write<Result: Sendable>(
        locking locks: [StorageLock],
        _ body: (any SQLConnection) async throws -> Result
    ) async throws(StorageError) -> Result {
        guard ServerTracer.inRecordedSpan else { return try await driver.write(locking: locks, body) }
        return try await tracer.withSpan("transaction", ofKind: .client, attributes: Self.attributes(kind, nil)) {
            _ throws(StorageError) in
            try await driver.write(locking: locks) { connection in
                try await body(TracedConnection(connection: connection, kind: kind, tracer: tracer))
            }
        }
    }

    /// A statement's span, around `run`.
    static func span<T, Failure: Error>(
        _ statement: SQL,
        kind: StorageKind,
        _ tracer: ServerTracer,
        _ run: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        guard ServerTracer.inRecordedSpan else { return try await run() }
        let summary = statement.summary
        return try await tracer.withLeafSpan(
            summary.description,
            ofKind: .client,
            attributes: attributes(kind, summary),
            run
        )
    }

    /// The attributes of a span of `kind`'s database: OpenTelemetry's names for them.
    static func attributes(_ kind: StorageKind, _ summary: SQL.Summary?) -> (inout SpanAttributes) -> Void {
        { attributes in
            attributes["db.system.name"] = kind.rawValue
            guard let summary else { return }
            attributes["db.operation.name"] = summary.operation
            if let table = summary.table { attributes["db.collection.name"] = table }
            attributes["db.query.summary"] = summary.description
        }
    }
}

/// The statements of a transaction, each a span of its own.
private struct TracedConnection: SQLConnection {
    let connection: any SQLConnection
    let kind: StorageKind
    let tracer: ServerTracer

    func rows(_ statement: SQL) async throws -> [SQLRow] {
        try await TracedDriver.span(statement, kind: kind, tracer) { try await connection.rows(statement) }
    }

    func execute(_ statement: SQL) async throws {
        try await TracedDriver.span(statement, kind: kind, tracer) { try await connection.execute(statement) }
    }
}

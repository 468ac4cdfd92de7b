import Foundation
import GRDB
import GangwayProtocol
import Synchronization

/// The user's copy of the app's data as tables they can query, in memory: a table per
/// entity set, a typed column and, where the set's ``EntitySchema`` says so, an index per
/// field, so "the open checks at stand 12, newest due first" is answered by SQLite, not
/// by decoding every entity. What the user's pending changes make of an entity is what
/// the store holds, marked pending.
///
/// It lives in memory, filled from the copy kept encrypted in the user's store
/// (``AppDataReader``): SQLite here cannot encrypt its pages (GRDB is built without
/// SQLCipher), and a queryable file would hold the data in plaintext, so none is written.
/// A query observed (``observe(_:)``) answers again each time a fill or an edit changes
/// the set's table.
public final class LocalEntityStore: Sendable {
    private let queue: DatabaseQueue
    /// The schema each set's table was built from (`nil`: untyped).
    private let schemas = Mutex<[String: EntitySchema?]>([:])
    /// Whose view each set's table holds, when ``OfflineWork`` filled it (the session's
    /// onboarding ID): an update for another user fills the table again.
    private let owners = Mutex<[String: UUID]>([:])

    public init() throws {
        queue = try DatabaseQueue()
    }

    /// Replaces what the store holds of `entitySet` with `entities`, in one transaction:
    /// its table built again from `schema`, its rows written, its indexes made.
    public func replace(
        _ entitySet: String,
        schema: EntitySchema?,
        with entities: [OfflineWork.ShownEntity]
    ) throws {
        let table = Self.table(entitySet)
        let typed = schema?.fields ?? []
        try queue.write { db in
            try db.execute(sql: "DROP TABLE IF EXISTS \(table)")
            let columns = typed.map { "\(Self.column($0.name)) \(Self.affinity($0.type))" }
            try db.execute(
                sql: """
                    CREATE TABLE \(table) (id TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL,
                        updated_at REAL NOT NULL, updated_by TEXT NOT NULL, pending INTEGER NOT NULL,
                        attention INTEGER NOT NULL, fields TEXT NOT NULL\(columns.map { ", " + $0 }.joined()))
                    """
            )
            try Self.write(entities, into: entitySet, typed: typed, db)
            for field in typed where field.indexed {
                try db.execute(
                    sql:
                        "CREATE INDEX \(Self.table(entitySet + "#" + field.name)) ON \(table) (\(Self.column(field.name)))"
                )
            }
            // The few rows shown as the user's own (``markedIDs(_:)``), found without a scan:
            // no field's index has this name (a field name holds no '!').
            try db.execute(
                sql: "CREATE INDEX \(Self.table(entitySet + "#!marked")) ON \(table) (id) WHERE pending OR attention"
            )
            // What each index holds, so a query by two fields uses the one that narrows most.
            if typed.contains(where: \.indexed) { try db.execute(sql: "ANALYZE \(table)") }
        }
        schemas.withLock { $0[entitySet] = .some(schema) }
        owners.withLock { $0[entitySet] = nil }
    }

    /// Records that the set's table holds `user`'s view (``OfflineWork`` after a fill).
    func mark(_ entitySet: String, filledFor user: UUID) {
        owners.withLock { $0[entitySet] = user }
    }

    /// Whether the set's table holds `user`'s view, filled by ``OfflineWork``.
    func isFilled(_ entitySet: String, for user: UUID) -> Bool {
        owners.withLock { $0[entitySet] == user }
    }

    /// Whether the store holds `entitySet` in a table built from `schema`, so that
    /// ``apply(_:schema:upserting:removing:)`` can bring it up to date.
    public func holds(_ entitySet: String, schema: EntitySchema?) -> Bool {
        schemas.withLock { $0[entitySet].map { $0 == schema } ?? false }
    }

    /// Writes `entities` over what the store holds of `entitySet` and removes
    /// `removedIDs`, in one transaction: observed queries answer once, after it.
    /// - Throws: ``LocalQueryError`` when the store does not hold the set in a table built
    ///   from `schema` (``holds(_:schema:)``): ``replace(_:schema:with:)`` it instead.
    public func apply(
        _ entitySet: String,
        schema: EntitySchema?,
        upserting entities: [OfflineWork.ShownEntity],
        removing removedIDs: [String]
    ) throws {
        guard holds(entitySet, schema: schema) else {
            throw LocalQueryError("The store does not hold \(entitySet) with this schema: fill it first.")
        }
        try queue.write { db in
            let remove = try db.makeStatement(sql: "DELETE FROM \(Self.table(entitySet)) WHERE id = ?")
            for id in removedIDs { try remove.execute(arguments: [id]) }
            try Self.write(entities, into: entitySet, typed: schema?.fields ?? [], db)
        }
    }

    /// The IDs of the entities of `entitySet` the store shows as the user's: pending, or
    /// needing their attention.
    func markedIDs(_ entitySet: String) throws -> [String] {
        guard holds(entitySet) else { return [] }
        return try queue.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM \(Self.table(entitySet)) WHERE pending OR attention")
        }
    }

    /// Whether the store holds `entitySet`, whatever its schema.
    private func holds(_ entitySet: String) -> Bool { schemas.withLock { $0[entitySet] != nil } }

    /// Inserts `entities` into the set's table, replacing the rows of the same IDs.
    private static func write(
        _ entities: [OfflineWork.ShownEntity],
        into entitySet: String,
        typed: [EntityField],
        _ db: Database
    ) throws {
        let names =
            ["id", "version", "updated_at", "updated_by", "pending", "attention", "fields"]
            + typed.map { column($0.name) }
        let insert = try db.makeStatement(
            sql: "INSERT OR REPLACE INTO \(table(entitySet)) (\(names.joined(separator: ", "))) VALUES ("
                + names.map { _ in "?" }.joined(separator: ", ") + ")"
        )
        for shown in entities {
            let entity = shown.entity
            var values: [(any DatabaseValueConvertible)?] = [
                entity.id, entity.version, entity.updatedAt.timeIntervalSince1970, entity.updatedBy,
                shown.pending, shown.needsAttention, FlatJSON.text(entity.fields),
            ]
            for field in typed { values.append(stored(entity.fields[field.name], as: field.type)) }
            try insert.execute(arguments: StatementArguments(values))
        }
    }

    /// The entities `query` asks for, as the user sees them.
    /// - Throws: ``LocalQueryError`` for a field the set's schema does not declare, or a
    ///   value not of its field's type.
    public func entities(_ query: LocalQuery) throws -> [OfflineWork.ShownEntity] {
        let sql = try select(query)
        return try queue.read { db in try Self.fetch(db, sql) }
    }

    /// How many entities pass the query's filters (its order and page aside).
    public func count(_ query: LocalQuery) throws -> Int {
        let (sql, arguments) = try select(query, counting: true)
        return try queue.read { db in try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
    }

    /// The answers to `query`: now, then again after each fill or edit that changes its
    /// set's table, until the task reading them ends.
    public func observe(_ query: LocalQuery) throws -> AsyncThrowingStream<[OfflineWork.ShownEntity], any Error> {
        let sql = try select(query)
        let observation = ValueObservation.tracking { db in try Self.fetch(db, sql) }
        let values = observation.values(in: queue)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await value in values { continuation.yield(value) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: Internals

    /// The statement of `query` (or of how many pass its filters, `counting`), and its
    /// arguments; of nothing for a set the store does not hold.
    private func select(_ query: LocalQuery, counting: Bool = false) throws -> (String, StatementArguments) {
        guard let known = schemas.withLock({ $0[query.entitySet] }) else {
            return (counting ? "SELECT 0" : "SELECT NULL WHERE 0", [])
        }
        let schema = known
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        for filter in query.filters {
            let (expression, type) = try Self.expression(filter.field, in: schema, of: query.entitySet)
            guard let value = Self.stored(filter.value, as: type) else {
                throw LocalQueryError("\(filter.field) is \(type.expected).")
            }
            if filter.comparison == .notEquals {
                conditions.append("(\(expression) IS NULL OR \(expression) != ?)")
            } else {
                conditions.append("\(expression) \(filter.comparison.rawValue) ?")
            }
            arguments.append(value)
        }
        var orders: [String] = []
        for order in query.order {
            let expression =
                order.field == "id" ? "id" : try Self.expression(order.field, in: schema, of: query.entitySet).0
            orders.append("\(expression) \(order.descending ? "DESC" : "ASC")")
        }
        orders.append("id ASC")
        let columns = counting ? "COUNT(*)" : "id, version, updated_at, updated_by, pending, attention, fields"
        var sql = "SELECT \(columns) FROM \(Self.table(query.entitySet))"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        guard !counting else { return (sql, StatementArguments(arguments)) }
        sql += " ORDER BY " + orders.joined(separator: ", ")
        if let limit = query.limit {
            sql += " LIMIT \(max(0, limit)) OFFSET \(max(0, query.offset))"
        } else if query.offset > 0 {
            sql += " LIMIT -1 OFFSET \(query.offset)"
        }
        return (sql, StatementArguments(arguments))
    }

    /// What a field is compared by: its typed column, or, in a set without a schema, its
    /// text in the entity's fields.
    private static func expression(
        _ field: String,
        in schema: EntitySchema?,
        of entitySet: String
    ) throws -> (String, FieldType) {
        guard EntityLimits.isFieldName(field) else {
            throw LocalQueryError("'\(field.prefix(64))' is not a field name (a letter, then letters, digits and '_').")
        }
        guard let schema else { return ("json_extract(fields, '$.\(field)')", .text) }
        guard let declared = schema.field(named: field) else {
            throw LocalQueryError("\(field) is not a field of \(entitySet).")
        }
        return (column(declared.name), declared.type)
    }

    private static func fetch(
        _ db: Database,
        _ statement: (String, StatementArguments)
    ) throws -> [OfflineWork.ShownEntity] {
        try Row.fetchAll(db, sql: statement.0, arguments: statement.1).map { row in
            OfflineWork.ShownEntity(
                entity: AppEntity(
                    id: row["id"],
                    fields: FlatJSON.strings(row["fields"]) ?? [:],
                    version: row["version"],
                    updatedAt: Date(timeIntervalSince1970: row["updated_at"]),
                    updatedBy: row["updated_by"]
                ),
                pending: row["pending"],
                needsAttention: row["attention"]
            )
        }
    }

    /// A field's value as its column holds it: `nil` for none, or for a text not of its type.
    static func stored(_ value: String?, as type: FieldType) -> (any DatabaseValueConvertible)? {
        guard let value, !value.isEmpty else { return nil }
        switch type {
        case .integer: return Int64(value)
        case .decimal: return type.accepts(value) ? Double(value) : nil
        case .boolean: return value == "true" ? true : value == "false" ? false : nil
        case .dateTime: return FieldType.dateTime(value)?.timeIntervalSince1970
        default: return value
        }
    }

    private static func affinity(_ type: FieldType) -> String {
        switch type {
        case .integer, .boolean: "INTEGER"
        case .decimal, .dateTime: "REAL"
        default: "TEXT"
        }
    }

    /// A set's table name, quoted: set names may hold '.' and '-'.
    private static func table(_ entitySet: String) -> String { "\"set:\(entitySet)\"" }

    /// A field's column, quoted.
    private static func column(_ field: String) -> String { "\"f:\(field)\"" }
}

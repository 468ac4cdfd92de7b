import Foundation
import GangwayProtocol

extension ServerStorage {
    /// The schemas of an app's entity sets that have one, by set; read through the cache,
    /// as every settings exchange reads them.
    public func entitySchemas(appID: String) async throws(StorageError) -> [String: EntitySchema] {
        try await cached(.entitySchemas(appID: appID)) { () throws(StorageError) in
            var schemas: [String: EntitySchema] = [:]
            for row in try await queries.read(
                "SELECT entity_set, schema FROM entity_sets WHERE app_id = \(appID) AND schema IS NOT NULL"
            ) {
                schemas[try row("entity_set")] = try Self.schema(in: row)
            }
            return schemas
        }
    }

    /// Gives an entity set `schema`, or takes its schema away (`nil`), unless entities of
    /// the set do not fit it. Every write of the set waits for this one, in any process,
    /// so none lands between the check and the change. A schema that every entity fits
    /// whatever it holds (``EntitySchema/keepsEveryEntity(of:)``) reads no entity; any
    /// other reads the set's entities, a page at a time, and checks each.
    ///
    /// - Returns: `nil` when the set has the schema now; otherwise, why not: how many
    ///   entities do not fit, and the first of them with its reason. Nothing changed.
    public func setEntitySchema(
        _ schema: EntitySchema?,
        appID: String,
        entitySet: String
    ) async throws(StorageError) -> EntitySchemaMisfit? {
        return try await writing(forgetting: [.key(.entitySchemas(appID: appID))]) { () throws(StorageError) in
            return try await queries.write(locking: [Self.writers(of: appID, entitySet)]) { connection in
                let set: SQL = "app_id = \(appID) AND entity_set = \(entitySet)"
                let old = try await connection.rows("SELECT schema FROM entity_sets WHERE \(set)").first
                    .flatMap { row throws(StorageError) in try Self.schema(in: row) }
                if let schema, !schema.keepsEveryEntity(of: old),
                    let misfit = try await Self.misfit(of: schema, in: entitySet, where: set, connection)
                {
                    return misfit
                }
                if old?.subset?.field != schema?.subset?.field {
                    try await Self.keySubset(of: set, by: schema?.subset, kind, connection)
                }
                let text = try schema.map { schema throws(StorageError) in try Self.text(of: schema) }
                try await connection.execute(
                    """
                    INSERT INTO entity_sets (app_id, entity_set, last_position, live_count, schema)
                    VALUES (\(appID), \(entitySet), 0, 0, \(text))
                    ON CONFLICT (app_id, entity_set) DO UPDATE SET schema = \(text)
                    """
                )
                return nil
            }
        }
    }

    /// Gives every entity of a set its value of the subset's new field (`nil`: none), and
    /// forgets the set's moves, which were between values of the old field. A reader's
    /// cursor names the subset it read by, so the next sync of each starts again.
    private static func keySubset(
        of set: SQL,
        by subset: EntitySubset?,
        _ kind: StorageKind,
        _ connection: any SQLConnection
    ) async throws {
        try await connection.execute("DELETE FROM entity_moves WHERE \(set)")
        guard let field = subset?.field else {
            try await connection.execute("UPDATE entities SET subset_key = NULL WHERE \(set)")
            return
        }
        // A field's name is a letter, then letters, digits and '_': a path of it needs no quoting.
        let value: SQL =
            switch kind {
            case .sqlite: "json_extract(fields, \("$." + field))"
            case .postgresql: "(fields::jsonb ->> \(field))"
            }
        try await connection.execute("UPDATE entities SET subset_key = NULLIF(\(value), '') WHERE \(set)")
    }

    /// The entities of a set that do not fit `schema`, read in pages by position.
    private static func misfit(
        of schema: EntitySchema,
        in entitySet: String,
        where set: SQL,
        _ connection: any SQLConnection
    ) async throws -> EntitySchemaMisfit? {
        var found: EntitySchemaMisfit?
        var after: Int64 = 0
        while true {
            let rows = try await connection.rows(
                """
                SELECT id, fields, position FROM entities
                WHERE \(set) AND position > \(after) AND removed_at IS NULL ORDER BY position LIMIT \(misfitPage)
                """
            )
            for row in rows {
                let fields = try ServerSchema.decodeFields(try row("fields"))
                do throws(EntitySchemaError) {
                    try schema.check(fields, in: entitySet)
                } catch {
                    if found == nil {
                        found = EntitySchemaMisfit(count: 0, firstID: try row("id"), reason: error)
                    }
                    found?.count += 1
                }
            }
            guard rows.count == misfitPage, let last = rows.last else { return found }
            after = try last("position")
        }
    }

    /// The entities a schema change checks at a time.
    private static let misfitPage = 5_000

    /// The schema a row of `entity_sets` holds, if any.
    static func schema(in row: SQLRow) throws(StorageError) -> EntitySchema? {
        guard let text = try row("schema", as: String?.self) else { return nil }
        do {
            return try JSONDecoder().decode(EntitySchema.self, from: Data(text.utf8))
        } catch {
            throw StorageError(.corrupt, "an entity set's stored schema could not be read")
        }
    }

    private static func text(of schema: EntitySchema) throws(StorageError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return String(decoding: try encoder.encode(schema), as: UTF8.self)
        } catch {
            throw StorageError(.corrupt, "an entity set's schema could not be written")
        }
    }
}

/// Why an entity set cannot take a schema: entities of the set that do not fit it.
public struct EntitySchemaMisfit: Sendable, Hashable {
    /// How many entities do not fit.
    public var count: Int
    /// The first of them, in the order of the set's change log.
    public var firstID: String
    /// Why it does not.
    public var reason: EntitySchemaError

    public init(count: Int, firstID: String, reason: EntitySchemaError) {
        self.count = count
        self.firstID = firstID
        self.reason = reason
    }
}

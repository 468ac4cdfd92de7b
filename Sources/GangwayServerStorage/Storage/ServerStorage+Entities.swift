import Foundation
import GangwayProtocol

extension ServerStorage {
    /// The entities of one entity set of an app, ordered by ID.
    public func entities(appID: String, entitySet: String) async throws(StorageError) -> [EntityRecord] {
        try await cached(.entitySet(appID: appID, entitySet: entitySet)) { () throws(StorageError) in
            try await all(
                "\(EntityRecord.select) WHERE app_id = \(appID) AND entity_set = \(entitySet) ORDER BY id",
                EntityRecord.init
            )
        }
    }

    /// Stores `entity`: a new one with version 1, unless its set holds `limit` entities
    /// already (``StorageError/Code/limitReached``); an existing one with its version one
    /// more than the stored one. Returns the entity as stored and whether it is new.
    ///
    /// An entity put this way is the admin's: no user's creations count it, whatever
    /// their name.
    public func putEntity(
        _ entity: EntityRecord,
        limit: Int
    ) async throws(StorageError) -> (EntityRecord, created: Bool) {
        defer { cache?.drop(.entitySet(appID: entity.appID, entitySet: entity.entitySet)) }
        let writers = StorageLock.entityWriters(registrations: [], entitySets: [entity.appID + "/" + entity.entitySet])
        return try await driver.write(locking: [writers]) { connection in
            let previous = try await connection.rows(
                """
                \(EntityRecord.select)
                WHERE app_id = \(entity.appID) AND entity_set = \(entity.entitySet) AND id = \(entity.id)
                """
            ).first.map(EntityRecord.init(row:))
            if previous == nil {
                let count = try await connection.rows(
                    """
                    SELECT COUNT(*) AS count FROM entities
                    WHERE app_id = \(entity.appID) AND entity_set = \(entity.entitySet)
                    """
                ).first.map { row throws(StorageError) in try row("count", as: Int.self) }
                guard (count ?? 0) < limit else { throw StorageError(.limitReached, "the entity set is full") }
            }
            var saved = entity
            saved.version = (previous?.version ?? 0) + 1
            saved.fieldVersions = EntityRecord.fieldVersions(
                replacing: previous,
                with: entity.fields,
                at: saved.version
            )
            try await connection.execute(EntityRecord.upsert([(saved, createdBy: nil)]))
            return (saved, previous == nil)
        }
    }

    /// Removes an entity; `false` when there was none.
    public func deleteEntity(appID: String, entitySet: String, id: String) async throws(StorageError) -> Bool {
        defer { cache?.drop(.entitySet(appID: appID, entitySet: entitySet)) }
        return try await count(
            "DELETE FROM entities WHERE app_id = \(appID) AND entity_set = \(entitySet) AND id = \(id) RETURNING id"
        ) > 0
    }

    /// The newest changes recorded for an app, newest first, of one outcome when given.
    public func changes(
        appID: String,
        outcome: ChangeResult.Outcome?,
        limit: Int
    ) async throws(StorageError) -> [RecordedChange] {
        var condition: SQL = "app_id = \(appID)"
        if let outcome { condition = condition + " AND outcome = \(outcome.rawValue)" }
        return try await all(
            """
            SELECT app_id, registration_id, author, carrier, entity_set, entity_id, result, received_at
            FROM changes WHERE \(condition) ORDER BY \(unescaped: ServerSchema.changeOrder(kind)) DESC LIMIT \(limit)
            """
        ) { row throws(StorageError) in
            RecordedChange(
                appID: try row("app_id"),
                registrationID: try row("registration_id"),
                author: try row("author"),
                carrier: try row("carrier"),
                entitySet: try row("entity_set"),
                entityID: try row("entity_id"),
                result: try ServerSchema.decodeResult(try row("result")),
                receivedAt: try row("received_at")
            )
        }
    }
}

extension EntityRecord {
    static let select: SQL = """
        SELECT app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions FROM entities
        """

    init(row: SQLRow) throws(StorageError) {
        self.init(
            appID: try row("app_id"),
            entitySet: try row("entity_set"),
            id: try row("id"),
            fields: try ServerSchema.decodeFields(try row("fields")),
            version: try row("version"),
            updatedAt: try row("updated_at"),
            updatedBy: try row("updated_by"),
            fieldVersions: try ServerSchema.decodeFieldVersions(try row("field_versions"))
        )
    }

    /// Writes the entities as they are now: a new one with the user who created it (`nil`:
    /// no user's, as the admin's), an existing one keeping its creator.
    static func upsert(_ entities: [(EntityRecord, createdBy: String?)]) -> SQL {
        let rows = entities.map { entity, createdBy -> SQL in
            """
            (\(entity.appID), \(entity.entitySet), \(entity.id), \(ServerSchema.encode(fields: entity.fields)),
                \(entity.version), \(entity.updatedAt), \(entity.updatedBy),
                \(ServerSchema.encode(fieldVersions: entity.fieldVersions)), \(createdBy))
            """
        }
        return """
            INSERT INTO entities (app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions,
                created_by)
            VALUES \(SQL.joined(rows, separator: ", "))
            ON CONFLICT (app_id, entity_set, id) DO UPDATE SET fields = excluded.fields,
                version = excluded.version, updated_at = excluded.updated_at, updated_by = excluded.updated_by,
                field_versions = excluded.field_versions
            """
    }
}

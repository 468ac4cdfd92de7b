import Foundation
import GangwayProtocol

extension ServerStorage {
    /// The entities of one entity set of an app, ordered by ID (removed ones are not),
    /// when it holds at most ``GangwayProtocol/EntityLimits/entitiesReadWhole``; a larger
    /// set is ``StorageError/Code/limitReached``, read by no more than one row past the
    /// limit.
    public func entities(appID: String, entitySet: String) async throws(StorageError) -> [EntityRecord] {
        try await cached(.entitySet(appID: appID, entitySet: entitySet)) { () throws(StorageError) in
            let entities = try await all(
                """
                \(EntityRecord.select)
                WHERE app_id = \(appID) AND entity_set = \(entitySet) AND removed_at IS NULL
                ORDER BY id LIMIT \(EntityLimits.entitiesReadWhole + 1)
                """,
                EntityRecord.init
            )
            guard entities.count <= EntityLimits.entitiesReadWhole else {
                throw StorageError(.limitReached, "the entity set is too large to read whole")
            }
            return entities
        }
    }

    /// A page of one entity set's entities, ordered by ID: at most `limit` of those whose
    /// IDs come after `after` (from the first when `nil`), and whether more remain.
    public func entities(
        appID: String,
        entitySet: String,
        after: String?,
        limit: Int
    ) async throws(StorageError) -> (entities: [EntityRecord], more: Bool) {
        let start: SQL = after.map { " AND id > \($0)" } ?? ""
        let entities = try await all(
            """
            \(EntityRecord.select)
            WHERE app_id = \(appID) AND entity_set = \(entitySet) AND removed_at IS NULL\(start)
            ORDER BY id LIMIT \(limit + 1)
            """,
            EntityRecord.init
        )
        return (Array(entities.prefix(limit)), entities.count > limit)
    }

    /// The entities of one set with these IDs (removed ones are not), in no order: one
    /// statement, whatever the set's size.
    public func entities(
        appID: String,
        entitySet: String,
        ids: Set<String>
    ) async throws(StorageError) -> [EntityRecord] {
        guard !ids.isEmpty else { return [] }
        return try await all(
            """
            \(EntityRecord.select)
            WHERE app_id = \(appID) AND entity_set = \(entitySet) AND id IN (\(list: Array(ids))) AND removed_at IS NULL
            """,
            EntityRecord.init
        )
    }

    /// Stores `entity`: a new one with version 1, unless its set holds `limit` entities
    /// already (``StorageError/Code/limitReached``); an existing one with its version one
    /// more than the stored one. Its fields must fit the set's schema, if it has one
    /// (``StorageError/Code/notValid``). Either way it takes the set's next position. Returns the
    /// entity as stored and whether it is new.
    ///
    /// An entity put this way is the admin's: no user's creations count it, whatever
    /// their name.
    public func putEntity(
        _ entity: EntityRecord,
        limit: Int
    ) async throws(StorageError) -> (EntityRecord, created: Bool) {
        return try await writing(forgetting: [.key(.entitySet(appID: entity.appID, entitySet: entity.entitySet))]) {
            () throws(StorageError) in
            return try await queries.write(locking: [Self.writers(of: entity.appID, entity.entitySet)]) { connection in
                let previous = try await connection.rows(
                    """
                    \(EntityRecord.select)
                    WHERE app_id = \(entity.appID) AND entity_set = \(entity.entitySet) AND id = \(entity.id)
                        AND removed_at IS NULL
                    """
                ).first.map(EntityRecord.init(row:))
                let set = try await connection.rows(
                    """
                    SELECT live_count, schema FROM entity_sets
                    WHERE app_id = \(entity.appID) AND entity_set = \(entity.entitySet)
                    """
                ).first
                let schema = try set.flatMap { row throws(StorageError) in try Self.schema(in: row) }
                if let schema {
                    do throws(EntitySchemaError) {
                        try schema.check(entity.fields, in: entity.entitySet)
                    } catch {
                        throw StorageError(.notValid, error.message)
                    }
                }
                if previous == nil {
                    let count = try set.map { row throws(StorageError) in try row("live_count", as: Int.self) }
                    guard (count ?? 0) < limit else { throw StorageError(.limitReached, "the entity set is full") }
                }
                var saved = entity
                saved.version = (previous?.version ?? 0) + 1
                saved.fieldVersions = EntityRecord.fieldVersions(
                    replacing: previous,
                    with: entity.fields,
                    at: saved.version
                )
                saved.position = try await Self.takePositions(
                    1,
                    appID: entity.appID,
                    entitySet: entity.entitySet,
                    adding: previous == nil ? 1 : 0,
                    connection
                )
                let subsets = schema?.subset.map { [entity.entitySet: $0] } ?? [:]
                try await connection.execute(EntityRecord.upsert([(saved, createdBy: nil)], subsets: subsets))
                if let moves = EntityRecord.moves([(saved, previous)], subsets: subsets) {
                    try await connection.execute(moves)
                }
                return (saved, previous == nil)
            }
        }
    }

    /// Removes an entity, at `date`: it leaves a tombstone at the set's next position,
    /// kept until the removals are purged (``purgeRemovals(of:before:)``); `false` when there was
    /// none.
    public func deleteEntity(
        appID: String,
        entitySet: String,
        id: String,
        at date: Date
    ) async throws(StorageError) -> Bool {
        return try await writing(forgetting: [.key(.entitySet(appID: appID, entitySet: entitySet))]) {
            () throws(StorageError) in
            return try await queries.write(locking: [Self.writers(of: appID, entitySet)]) { connection in
                let entity: SQL = "app_id = \(appID) AND entity_set = \(entitySet) AND id = \(id)"
                guard
                    try await !connection.rows("SELECT id FROM entities WHERE \(entity) AND removed_at IS NULL").isEmpty
                else { return false }
                let position = try await Self.takePositions(
                    1,
                    appID: appID,
                    entitySet: entitySet,
                    adding: -1,
                    connection
                )
                try await connection.execute(
                    """
                    UPDATE entities SET fields = '{}', field_versions = NULL, created_by = NULL,
                        position = \(position), removed_at = \(date)
                    WHERE \(entity)
                    """
                )
                return true
            }
        }
    }

    /// One page of an entity set's change log, as one snapshot: the entities whose last
    /// write stands past `after` and at or before `through` (the set's last position when
    /// `nil`), in the order of their positions, at most `limit` of them.
    ///
    /// - Parameters:
    ///   - includingRemovals: Whether tombstones are entries; a reader that starts from
    ///     nothing needs none.
    ///   - subset: For a reader of a part of the set (``EntitySubset``), the values of
    ///     its field the reader receives: only entities holding one of them are entries,
    ///     and an entity that moved from one of them to a value outside is a removal at
    ///     the position of the write that moved it. `nil`: the whole set.
    public func entityLog(
        appID: String,
        entitySet: String,
        after: Int64,
        through: Int64?,
        includingRemovals: Bool,
        subset: Set<String>? = nil,
        limit: Int
    ) async throws(StorageError) -> EntityLogPage {
        let set: SQL = "app_id = \(appID) AND entity_set = \(entitySet)"
        let end: SQL = through.map { "\($0)" } ?? "(SELECT last_position FROM entity_sets WHERE \(set))"
        let range: SQL = "\(set) AND position > \(after) AND position <= \(end)"
        var chosen: SQL = """
            SELECT app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions, position,
                removed_at
            FROM entities WHERE \(range)
            """
        if !includingRemovals { chosen = "\(chosen) AND removed_at IS NULL" }
        if let subset {
            let keys = Array(subset).sorted()
            let within: SQL = keys.isEmpty ? "1 = 0" : "subset_key IN (\(list: keys))"
            chosen = "\(chosen) AND \(within)"
            if includingRemovals, !keys.isEmpty {
                chosen = """
                    \(chosen)
                    UNION ALL
                    SELECT app_id, entity_set, id, '{}', 0, moved_at, '', NULL, position, moved_at FROM entity_moves
                    WHERE \(range) AND old_key IN (\(list: keys)) AND (new_key IS NULL OR new_key NOT IN (\(list: keys)))
                    """
            }
        }
        // The page is chosen inside, by the position index in its order and no further
        // than it must read; the set's row is joined to it after. (Joined first, with the
        // limit outside, PostgreSQL read the whole set and sorted it for each page.)
        let rows = try await queries.read(
            """
            SELECT s.last_position, s.purged_through, e.app_id, e.entity_set, e.id, e.fields, e.version,
                e.updated_at, e.updated_by, e.field_versions, e.position, e.removed_at
            FROM entity_sets s LEFT JOIN (\(chosen) ORDER BY position LIMIT \(limit + 1)) e ON 1 = 1
            WHERE s.app_id = \(appID) AND s.entity_set = \(entitySet)
            ORDER BY e.position
            """
        )
        guard let first = rows.first else {
            return EntityLogPage(entries: [], hasMore: false, lastPosition: 0, purgedThrough: 0)
        }
        var entries: [EntityLogPage.Entry] = []
        for row in rows.prefix(limit) {
            guard let position = try row("position", as: Int64?.self) else { continue }
            if let removedAt = try row("removed_at", as: Date?.self) {
                entries.append(.removed(id: try row("id"), position: position, removedAt: removedAt))
            } else {
                entries.append(.written(try EntityRecord(row: row)))
            }
        }
        return EntityLogPage(
            entries: entries,
            hasMore: rows.count > limit,
            lastPosition: try first("last_position"),
            purgedThrough: try first("purged_through")
        )
    }

    /// The last position of each of an app's `entitySets` that has one: one statement,
    /// however many sets, for whoever watches them change.
    public func lastPositions(appID: String, entitySets: Set<String>) async throws(StorageError) -> [String: Int64] {
        guard !entitySets.isEmpty else { return [:] }
        var positions: [String: Int64] = [:]
        for row in try await queries.read(
            """
            SELECT entity_set, last_position FROM entity_sets
            WHERE app_id = \(appID) AND entity_set IN (\(list: entitySets.sorted()))
            """
        ) {
            positions[try row("entity_set")] = try row("last_position")
        }
        return positions
    }

    /// What a write of entities in one set waits for.
    static func writers(of appID: String, _ entitySet: String) -> StorageLock {
        .entityWriters(registrations: [], entitySets: [appID + "/" + entitySet])
    }

    /// Takes the next `count` positions of an entity set's change log, adds `added` to the
    /// entities it holds (a creation 1, a removal -1), and returns the first position.
    /// Inside a write: the set's row stays locked until the transaction ends, so a
    /// later write of the set takes later positions and cannot commit before this one.
    /// Positions therefore become visible in their order, and a reader past a position
    /// never misses a write at or before it.
    static func takePositions(
        _ count: Int,
        appID: String,
        entitySet: String,
        adding added: Int,
        _ connection: any SQLConnection
    ) async throws -> Int64 {
        let (taken, added) = (Int64(count), Int64(added))
        let rows = try await connection.rows(
            """
            INSERT INTO entity_sets (app_id, entity_set, last_position, live_count)
            VALUES (\(appID), \(entitySet), \(taken), \(added))
            ON CONFLICT (app_id, entity_set) DO UPDATE SET last_position = entity_sets.last_position + \(taken),
                live_count = entity_sets.live_count + \(added)
            RETURNING last_position
            """
        )
        guard let row = rows.first else { throw StorageError(.corrupt, "no position was taken") }
        return try row("last_position", as: Int64.self) - taken + 1
    }

    /// Forgets the tombstones of entities removed before `date`, one set at a time, each
    /// in a write of its own that the set's other writes wait for. Each set records the
    /// last position it forgot, so a reader whose cursor is before it is told to read the
    /// set again. The moves of entities out of subset values before `date` go with them.
    /// Returns how many tombstones it forgot.
    /// - Parameter appID: The app whose sets to purge; `nil`: every app's.
    public func purgeRemovals(of appID: String? = nil, before date: Date) async throws(StorageError) -> Int {
        let app: SQL = appID.map { "AND app_id = \($0)" } ?? ""
        let sets = try await all(
            """
            SELECT app_id, entity_set FROM entities WHERE removed_at < \(date) \(app)
            UNION SELECT app_id, entity_set FROM entity_moves WHERE moved_at < \(date) \(app)
            ORDER BY app_id, entity_set
            """
        ) { row throws(StorageError) in
            (appID: try row("app_id", as: String.self), entitySet: try row("entity_set", as: String.self))
        }
        var purged = 0
        for set in sets {
            purged += try await queries.write(locking: [Self.writers(of: set.appID, set.entitySet)]) { connection in
                let removed: SQL = """
                    app_id = \(set.appID) AND entity_set = \(set.entitySet) AND removed_at < \(date)
                    """
                let positions = try await connection.rows("DELETE FROM entities WHERE \(removed) RETURNING position")
                let moves = try await connection.rows(
                    """
                    DELETE FROM entity_moves
                    WHERE app_id = \(set.appID) AND entity_set = \(set.entitySet) AND moved_at < \(date)
                    RETURNING position
                    """
                )
                let last = try (positions + moves).map { row throws(StorageError) in try row("position", as: Int64.self)
                }
                .max()
                guard let last else { return 0 }
                try await connection.execute(
                    """
                    UPDATE entity_sets SET purged_through = \(last)
                    WHERE app_id = \(set.appID) AND entity_set = \(set.entitySet) AND purged_through < \(last)
                    """
                )
                return positions.count
            }
        }
        return purged
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
    /// The columns ``init(row:)`` reads.
    static let columns: SQL =
        "app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions, position"

    static let select: SQL = "SELECT \(columns) FROM entities"

    init(row: SQLRow) throws(StorageError) {
        self.init(
            appID: try row("app_id"),
            entitySet: try row("entity_set"),
            id: try row("id"),
            fields: try ServerSchema.decodeFields(try row("fields")),
            version: try row("version"),
            updatedAt: try row("updated_at"),
            updatedBy: try row("updated_by"),
            fieldVersions: try ServerSchema.decodeFieldVersions(try row("field_versions")),
            position: try row("position")
        )
    }

    /// Writes the entities as they are now, each at its position: a new one (or one over
    /// a tombstone) with the user who created it (`nil`: no user's, as the admin's), an
    /// existing one keeping its creator.
    ///
    /// - Parameter subsets: The subsets of the entities' sets, by set name: each entity
    ///   keeps its value of its set's subset field (`subset_key`).
    static func upsert(_ entities: [(EntityRecord, createdBy: String?)], subsets: [String: EntitySubset] = [:]) -> SQL {
        let rows = entities.map { entity, createdBy -> SQL in
            """
            (\(entity.appID), \(entity.entitySet), \(entity.id), \(ServerSchema.encode(fields: entity.fields)),
                \(entity.version), \(entity.updatedAt), \(entity.updatedBy),
                \(ServerSchema.encode(fieldVersions: entity.fieldVersions)), \(createdBy), \(entity.position),
                \(subsets[entity.entitySet].flatMap { entity.subsetKey(of: $0) }))
            """
        }
        return """
            INSERT INTO entities (app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions,
                created_by, position, subset_key)
            VALUES \(SQL.joined(rows, separator: ", "))
            \(onConflict)
            """
    }

    /// What an upsert of entities does to one that exists: takes the new state, and keeps
    /// its creator unless it had been removed.
    static let onConflict: SQL = """
        ON CONFLICT (app_id, entity_set, id) DO UPDATE SET fields = excluded.fields,
            version = excluded.version, updated_at = excluded.updated_at, updated_by = excluded.updated_by,
            field_versions = excluded.field_versions, position = excluded.position, removed_at = NULL,
            subset_key = excluded.subset_key,
            created_by = CASE WHEN entities.removed_at IS NULL THEN entities.created_by
                ELSE excluded.created_by END
        """

    /// The entity's value of `subset`'s field; `nil` when it has none.
    func subsetKey(of subset: EntitySubset) -> String? {
        guard let value = fields[subset.field], !value.isEmpty else { return nil }
        return value
    }

    /// The move of this entity, written over `previous`, out of the subset value it had:
    /// `nil` when it had none, or keeps it.
    static func moves(
        _ written: [(entity: EntityRecord, previous: EntityRecord?)],
        subsets: [String: EntitySubset]
    ) -> SQL? {
        let rows = written.compactMap { entity, previous -> SQL? in
            guard let subset = subsets[entity.entitySet], let old = previous?.subsetKey(of: subset) else { return nil }
            let new = entity.subsetKey(of: subset)
            guard old != new else { return nil }
            return
                "(\(entity.appID), \(entity.entitySet), \(entity.position), \(entity.id), \(old), \(new), \(entity.updatedAt))"
        }
        guard !rows.isEmpty else { return nil }
        return """
            INSERT INTO entity_moves (app_id, entity_set, position, id, old_key, new_key, moved_at)
            VALUES \(SQL.joined(rows, separator: ", "))
            """
    }
}

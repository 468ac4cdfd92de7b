import Foundation
import GangwayProtocol

extension ServerStorage {
    /// Applies one part of an ingest batch to `entitySet` in one transaction, and returns
    /// where the batch stands after it.
    ///
    /// Idempotent by `batchID`: the batch records its last line and its digest
    /// (``IngestPart``) in the same transaction, so a part sent again (a caller's retry,
    /// after a lost answer or a server that stopped) finds its lines done, with its
    /// digest, and applies nothing. A part applies only on top of the batch as the caller
    /// read it: when the batch stands elsewhere (its ID was used for other rows, or
    /// another request is sending it), the part is refused with
    /// ``StorageError/Code-swift.enum/conflict`` and nothing of it applies.
    ///
    /// Rows apply in line order, a later row of an entity over an earlier one; each
    /// entity written or removed takes the set's next position once, in its state at the
    /// end of the part, so devices see one change per entity. A row the set's schema
    /// refuses, or a new entity past `limit`, is refused alone, with its reason; the
    /// rest apply.
    /// - Parameters:
    ///   - part: The part's rows, in line order, and the lines refused as unreadable.
    ///   - author: Who the written entities are by (`updatedBy`).
    public func ingest(
        _ part: IngestPart,
        into entitySet: String,
        of appID: String,
        batch batchID: String,
        limit: Int,
        by author: String,
        at date: Date
    ) async throws(StorageError) -> IngestProgress {
        return try await writing(forgetting: [.key(.entitySet(appID: appID, entitySet: entitySet))]) {
            () throws(StorageError) in
            let kind = kind
            return try await queries.write(locking: [Self.writers(of: appID, entitySet)]) { connection in
                let batch: SQL = "app_id = \(appID) AND entity_set = \(entitySet) AND batch_id = \(batchID)"
                var progress =
                    try await connection.rows(
                        "SELECT lines_done, written, removed, refused_count, refused, digest FROM ingest_batches WHERE \(batch)"
                    ).first.map(IngestProgress.init(row:)) ?? IngestProgress()
                if progress.linesDone == part.through, progress.digest == part.digest { return progress }
                guard progress.linesDone == part.after, progress.digest == part.digestBefore else {
                    throw StorageError(.conflict, "The ingest batch stands at another line or digest.")
                }
                let pending = part.rows.sorted { $0.line < $1.line }
                let ids = Array(Set(pending.map(\.id)))
                let state = try await Self.partState(of: ids, in: appID, entitySet, kind, connection)
                var live = state.live
                let (previous, schema) = (state.previous, state.schema)
                let startingLive = live

                // Each entity's state at the end of the part: written (its fields) or removed.
                var current = previous.mapValues { Optional($0) }
                var touched: [String] = []
                var refused = part.unreadable
                for row in pending {
                    let holds = (current[row.id] ?? nil) != nil
                    guard let fields = row.fields else {
                        if holds {
                            current[row.id] = .some(nil)
                            live -= 1
                            touched.append(row.id)
                        }
                        continue
                    }
                    if let schema {
                        do throws(EntitySchemaError) {
                            try schema.check(fields, in: entitySet)
                        } catch {
                            refused.append(
                                .init(line: row.line, id: row.id, code: "FIELD_NOT_VALID", message: error.message)
                            )
                            continue
                        }
                    }
                    guard holds || live < limit else {
                        refused.append(
                            .init(
                                line: row.line,
                                id: row.id,
                                code: "ENTITY_SET_FULL",
                                message: "The entity set is full."
                            )
                        )
                        continue
                    }
                    if !holds { live += 1 }
                    let base = current[row.id] ?? nil
                    current[row.id] = .some(
                        EntityRecord(
                            appID: appID,
                            entitySet: entitySet,
                            id: row.id,
                            fields: fields,
                            version: base?.version ?? 0,
                            updatedAt: date,
                            updatedBy: author,
                            fieldVersions: base?.fieldVersions ?? [:]
                        )
                    )
                    touched.append(row.id)
                }

                let (writtenCount, removedCount) = try await Self.write(
                    current,
                    over: previous,
                    removed: state.removed,
                    touched: touched,
                    of: appID,
                    entitySet,
                    adding: live - startingLive,
                    subset: schema?.subset,
                    by: author,
                    at: date,
                    kind,
                    connection
                )

                progress.linesDone = part.through
                progress.digest = part.digest
                progress.written += writtenCount
                progress.removed += removedCount
                progress.refusedCount += refused.count
                refused.sort { $0.line < $1.line }
                progress.refused += refused.prefix(max(0, IngestProgress.refusalsKept - progress.refused.count))
                let kept = try ServerSchema.encode(refusals: progress.refused)
                try await connection.execute(
                    """
                    INSERT INTO ingest_batches (app_id, entity_set, batch_id, lines_done, written, removed, refused_count,
                        refused, digest, updated_at)
                    VALUES (\(appID), \(entitySet), \(batchID), \(progress.linesDone), \(progress.written),
                        \(progress.removed), \(progress.refusedCount), \(kept), \(part.digest), \(date))
                    ON CONFLICT (app_id, entity_set, batch_id) DO UPDATE SET lines_done = excluded.lines_done,
                        written = excluded.written, removed = excluded.removed, refused_count = excluded.refused_count,
                        refused = excluded.refused, digest = excluded.digest, updated_at = excluded.updated_at
                    """
                )
                return progress
            }
        }
    }

    /// What a part of bulk writes (an ingest's, a data source read's) starts from, read
    /// in its transaction: the set's live count and schema, the live entities among
    /// `ids`, and the condition that names them (one array, not thousands of bound
    /// values), and those among them removed (their rows kept as tombstones). On
    /// PostgreSQL, the table is analysed first when its statistics are stale.
    static func partState(
        of ids: [String],
        in appID: String,
        _ entitySet: String,
        _ kind: StorageKind,
        _ connection: any SQLConnection
    ) async throws -> (
        live: Int, schema: EntitySchema?, previous: [String: EntityRecord], removed: Set<String>, named: SQL
    ) {
        let set = try await connection.rows(
            "SELECT live_count, schema FROM entity_sets WHERE app_id = \(appID) AND entity_set = \(entitySet)"
        ).first
        let live = try set.map { row throws(StorageError) in try row("live_count", as: Int.self) } ?? 0
        let named: SQL
        switch kind {
        case .sqlite:
            named = "id IN (SELECT value FROM json_each(\(array: ids)))"
        case .postgresql:
            named = "id = ANY(\(array: ids))"
            try await analyseIfStale(holding: live, connection)
        }
        // One look-up of the IDs finds both: the live entities, and the removed ones,
        // which keep their row (a tombstone), so writing one again updates it.
        var previous: [String: EntityRecord] = [:]
        var removed: Set<String> = []
        for row in try await connection.rows(
            """
            SELECT \(EntityRecord.columns), removed_at IS NOT NULL AS removed FROM entities
            WHERE app_id = \(appID) AND entity_set = \(entitySet) AND \(named)
            """
        ) {
            if try row("removed", as: Bool.self) {
                removed.insert(try row("id"))
            } else {
                let entity = try EntityRecord(row: row)
                previous[entity.id] = entity
            }
        }
        let schema = try set.flatMap { row throws(StorageError) in try Self.schema(in: row) }
        return (live, schema, previous, removed, named)
    }

    /// Writes the entities a part `touched` in their state at its end (`current`: fields,
    /// or `nil` for removed), over their state before it (`previous`, live ones only):
    /// each takes the set's next position once, in the order of its last row, so devices
    /// see one change per entity. `adding` is how many more live entities the set holds
    /// after it. Returns how many were written and removed.
    static func write(
        _ current: [String: EntityRecord?],
        over previous: [String: EntityRecord],
        removed: Set<String>,
        touched: [String],
        of appID: String,
        _ entitySet: String,
        adding: Int,
        subset: EntitySubset?,
        by author: String,
        at date: Date,
        _ kind: StorageKind,
        _ connection: any SQLConnection
    ) async throws -> (written: Int, removed: Int) {
        // One position per entity the part changed, in the order of its last row.
        var order: [String] = []
        var seen: Set<String> = []
        for id in touched.reversed() where seen.insert(id).inserted { order.append(id) }
        order.reverse()
        var written: [(entity: EntityRecord, previous: EntityRecord?)] = []
        var removedIDs: [String] = []
        if !order.isEmpty {
            var position = try await Self.takePositions(
                order.count,
                appID: appID,
                entitySet: entitySet,
                adding: adding,
                connection
            )
            var removedAt: [(id: String, position: Int64)] = []
            for id in order {
                defer { position += 1 }
                guard let state = current[id] ?? nil else {
                    if previous[id] != nil { removedAt.append((id, position)) }
                    continue
                }
                var saved = state
                let before = previous[id]
                saved.version = (before?.version ?? 0) + 1
                saved.fieldVersions = EntityRecord.fieldVersions(
                    replacing: before,
                    with: saved.fields,
                    at: saved.version
                )
                saved.position = position
                written.append((saved, before))
            }
            let subsets = subset.map { [entitySet: $0] } ?? [:]
            switch kind {
            case .sqlite:
                for chunk in stride(from: 0, to: written.count, by: Self.ingestStatementRows) {
                    let part = Array(written[chunk..<min(written.count, chunk + Self.ingestStatementRows)])
                    try await connection.execute(
                        EntityRecord.upsert(part.map { ($0.entity, createdBy: nil) }, subsets: subsets)
                    )
                }
            case .postgresql:
                // Entities that have no row yet are inserted plainly: the set's writers'
                // lock keeps anyone else from adding them, and an insert that cannot
                // conflict skips the upsert's speculative one.
                let (fresh, stored) = (
                    written.filter { $0.previous == nil && !removed.contains($0.entity.id) },
                    written.filter { $0.previous != nil || removed.contains($0.entity.id) }
                )
                // A few statements, each built (its rows encoded) while the one before
                // runs: the server's core encodes as the database's writes.
                let statements = [(fresh, false), (stored, true)].flatMap { part, conflicts in
                    stride(from: 0, to: part.count, by: Self.postgresStatementRows).map { start in
                        (part[start..<min(part.count, start + Self.postgresStatementRows)].map(\.entity), conflicts)
                    }
                }
                @Sendable func built(_ index: Int) -> Task<SQL, Never> {
                    let (entities, conflicts) = statements[index]
                    return Task {
                        Self.upsert(
                            entities,
                            of: appID,
                            entitySet,
                            by: author,
                            at: date,
                            subsets,
                            conflicts: conflicts
                        )
                    }
                }
                var next = statements.isEmpty ? nil : built(0)
                for index in statements.indices {
                    guard let statement = await next?.value else { break }
                    next = index + 1 < statements.count ? built(index + 1) : nil
                    try await connection.execute(statement)
                }
            }
            for chunk in stride(from: 0, to: written.count, by: Self.ingestStatementRows) {
                let part = Array(written[chunk..<min(written.count, chunk + Self.ingestStatementRows)])
                if let moves = EntityRecord.moves(part, subsets: subsets) { try await connection.execute(moves) }
            }
            for removal in removedAt {
                try await connection.execute(
                    """
                    UPDATE entities SET fields = '{}', field_versions = NULL, created_by = NULL,
                        position = \(removal.position), removed_at = \(date)
                    WHERE app_id = \(appID) AND entity_set = \(entitySet) AND id = \(removal.id)
                    """
                )
                removedIDs.append(removal.id)
            }
        }
        return (written.count, removedIDs.count)
    }

    /// Where an ingest batch stands; `nil` before its first part.
    public func ingestProgress(
        of batchID: String,
        into entitySet: String,
        of appID: String
    ) async throws(StorageError) -> IngestProgress? {
        try await all(
            """
            SELECT lines_done, written, removed, refused_count, refused, digest FROM ingest_batches
            WHERE app_id = \(appID) AND entity_set = \(entitySet) AND batch_id = \(batchID)
            """,
            IngestProgress.init(row:)
        ).first
    }

    /// Has PostgreSQL analyse `entities` when its statistics count fewer than half the
    /// rows of one set (`live`), as after a bulk load before autovacuum's turn: with them,
    /// the planner takes a set of a million rows for a few, and looks up a part's IDs by
    /// scanning the whole set on another index, part after part. Analysing samples the
    /// table (about 30,000 rows, a fraction of a second) and happens once per doubling.
    static func analyseIfStale(holding live: Int, _ connection: any SQLConnection) async throws {
        guard live >= staleStatisticsRows else { return }
        let counted =
            try await connection.rows(
                "SELECT reltuples::bigint AS counted FROM pg_class WHERE oid = 'entities'::regclass"
            )
            .first.map { row throws(StorageError) in try row("counted", as: Int64.self) } ?? 0
        if counted < live / 2 { try await connection.execute("ANALYZE entities") }
    }

    /// A set smaller than this is looked up well whatever the statistics say.
    static let staleStatisticsRows = 50_000

    /// Entities written by one statement of an ingest on SQLite.
    static let ingestStatementRows = 500

    /// Entities written by one statement of an ingest on PostgreSQL: a part of 10,000 in
    /// four, so that three are built while the one before runs.
    static let postgresStatementRows = 2_500

    /// PostgreSQL's upsert of a part's entities, all of one set, author and time, in one
    /// statement: each column an array, bound once (`unnest`), where a `VALUES` list binds
    /// eleven values a row.
    private static func upsert(
        _ entities: [EntityRecord],
        of appID: String,
        _ entitySet: String,
        by author: String,
        at date: Date,
        _ subsets: [String: EntitySubset],
        conflicts: Bool
    ) -> SQL {
        let subset = subsets[entitySet]
        return """
            INSERT INTO entities (app_id, entity_set, id, fields, version, updated_at, updated_by, field_versions,
                created_by, position, subset_key)
            SELECT \(appID), \(entitySet), row.id, row.fields, row.version, \(date), \(author), row.field_versions,
                NULL, row.position, NULLIF(row.subset_key, '')
            FROM unnest(\(array: entities.map(\.id))::text[], \(array: entities.map { ServerSchema.encode(fields: $0.fields) })::text[],
                \(array: entities.map(\.version))::bigint[],
                \(array: entities.map { ServerSchema.encode(fieldVersions: $0.fieldVersions) })::text[],
                \(array: entities.map(\.position))::bigint[],
                \(array: entities.map { entity in subset.flatMap { entity.subsetKey(of: $0) } ?? "" })::text[])
                AS row(id, fields, version, field_versions, position, subset_key)
            \(conflicts ? EntityRecord.onConflict : "")
            """
    }
}

extension IngestProgress {
    init(row: SQLRow) throws(StorageError) {
        self.init(
            linesDone: try row("lines_done"),
            written: try row("written"),
            removed: try row("removed"),
            refusedCount: try row("refused_count"),
            refused: try ServerSchema.decodeRefusals(try row("refused")),
            digest: try row("digest")
        )
    }
}

import Foundation
import GangwayProtocol

extension ServerStorage {
    /// Ends verified changes exactly once, in order, in one transaction that every other
    /// write of their entity sets and every other change of their registrations, in any
    /// process, waits for. For each change:
    ///
    /// 1. a change ID on record (before, or earlier in the batch) gets its first result
    ///    back as a duplicate, and nothing changes;
    /// 2. a sequence number the registration used for another change is rejected
    ///    (`SEQUENCE_REUSED`);
    /// 3. a change of a set whose data source delivers devices' changes, that `decide`
    ///    lets through, is queued for the company's backend (``claimDeliveries(at:until:limit:)``)
    ///    and held (`DELIVERING`): its result is the backend's, recorded when it answers;
    ///    sent again meanwhile, it is held again, and queued once;
    /// 4. otherwise `decide` gets the change and its entity as stored (`nil` when there is
    ///    none, and with the batch's earlier changes applied) and returns the merge to
    ///    write, or throws a rejection; a merge that leaves an entity its set's schema
    ///    does not fit is rejected (`FIELD_NOT_VALID`), and a new entity past `limit`
    ///    entities in its set (`ENTITY_SET_FULL`).
    ///
    /// Each entity and result are written together; the result is recorded under the
    /// change ID whatever it is. Nothing of the batch is written unless all of it is.
    ///
    /// - Returns: One result per change, in the batch's order.
    public func applyChanges(
        _ batch: [ChangeApplication],
        limit: Int,
        decide: @escaping @Sendable (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) async throws(StorageError) -> [ChangeResult] {
        guard !batch.isEmpty else { return [] }
        let sets = Set(batch.map { ChangeBatch.SetKey(appID: $0.appID, entitySet: $0.change.entitySet) })
        let writers = StorageLock.entityWriters(
            registrations: Set(batch.map(\.change.registrationID)),
            entitySets: Set(sets.map { $0.appID + "/" + $0.entitySet })
        )
        let stale = sets.map { ReadCache.Drop.key(.entitySet(appID: $0.appID, entitySet: $0.entitySet)) }
        return try await writing(forgetting: stale) { () throws(StorageError) in
            try await queries.write(locking: [writers]) { connection in
                var state = try await Self.read(batch, connection)
                let results = try batch.map { application in
                    try state.apply(application, limit: limit, decide: decide)
                }
                try await Self.write(state, connection)
                return results
            }
        }
    }

    /// What the database holds of the batch's change IDs, sequences and entities, its sets'
    /// counts and schemas, and, when a change may create an entity, its authors' creations.
    private static func read(_ batch: [ChangeApplication], _ connection: any SQLConnection) async throws -> ChangeBatch
    {
        var state = ChangeBatch()
        let changes = batch.map(\.change)
        for row in try await connection.rows(
            "SELECT change_id, result FROM changes WHERE change_id IN (\(list: changes.map(\.id.lowercasedText)))"
        ) {
            state.results[try row("change_id")] = try ServerSchema.decodeResult(try row("result"))
        }
        for row in try await connection.rows(
            """
            SELECT registration_id, sequence FROM changes
            WHERE registration_id IN (\(list: Array(Set(changes.map(\.registrationID)))))
                AND sequence IN (\(list: Array(Set(changes.map(\.sequence)))))
            """
        ) {
            state.sequences.insert(
                ChangeBatch.SequenceKey(registrationID: try row("registration_id"), sequence: try row("sequence"))
            )
        }
        let keys = Set(
            batch.map { ChangeBatch.EntityKey(appID: $0.appID, entitySet: $0.change.entitySet, id: $0.change.entityID) }
        )
        let apps = Array(Set(keys.map(\.appID)))
        let sets = Array(Set(keys.map(\.entitySet)))
        for row in try await connection.rows(
            """
            \(EntityRecord.select) WHERE app_id IN (\(list: apps)) AND entity_set IN (\(list: sets))
                AND id IN (\(list: Array(Set(keys.map(\.id))))) AND removed_at IS NULL
            """
        ) {
            let entity = try EntityRecord(row: row)
            let key = ChangeBatch.EntityKey(appID: entity.appID, entitySet: entity.entitySet, id: entity.id)
            if keys.contains(key) { state.entities[key] = entity }
        }
        state.stored = state.entities
        // The sets whose source delivers devices' changes, and the batch's changes already
        // waiting for their backend.
        for row in try await connection.rows(
            "SELECT app_id, entity_set FROM data_sources WHERE app_id IN (\(list: apps)) AND delivers"
        ) {
            state.delivering.insert(ChangeBatch.SetKey(appID: try row("app_id"), entitySet: try row("entity_set")))
        }
        if !state.delivering.isEmpty {
            for row in try await connection.rows(
                "SELECT change_id FROM deliveries WHERE change_id IN (\(list: changes.map(\.id.lowercasedText)))"
            ) {
                state.queuedIDs.insert(try row("change_id"))
            }
        }
        let setKeys = Set(keys.map { ChangeBatch.SetKey(appID: $0.appID, entitySet: $0.entitySet) })
        for row in try await connection.rows(
            """
            SELECT app_id, entity_set, live_count, schema FROM entity_sets
            WHERE app_id IN (\(list: apps)) AND entity_set IN (\(list: sets))
            """
        ) {
            let set = ChangeBatch.SetKey(appID: try row("app_id"), entitySet: try row("entity_set"))
            guard setKeys.contains(set) else { continue }
            state.creations[set, default: ChangeBatch.Creations()].inSet = try row("live_count")
            state.schemas[set] = try Self.schema(in: row)
        }
        guard keys.contains(where: { state.entities[$0] == nil }) else { return state }
        // Each author's creations, counted over the author's own rows (an index's range).
        for row in try await connection.rows(
            """
            SELECT app_id, entity_set, created_by, COUNT(*) AS count FROM entities
            WHERE app_id IN (\(list: apps)) AND entity_set IN (\(list: sets))
                AND created_by IN (\(list: Array(Set(changes.map(\.author))))) AND removed_at IS NULL
            GROUP BY app_id, entity_set, created_by
            """
        ) {
            let set = ChangeBatch.SetKey(appID: try row("app_id"), entitySet: try row("entity_set"))
            guard setKeys.contains(set) else { continue }
            let author: String = try row("created_by")
            state.creations[set, default: ChangeBatch.Creations()].byAuthor[author] = try row("count")
        }
        return state
    }

    /// The batch's entities as it left them, each at its set's next position in the order
    /// the batch first changed them, and its changes with their results.
    private static func write(_ state: ChangeBatch, _ connection: any SQLConnection) async throws {
        var entities = state.changedEntities.compactMap { key in
            state.entities[key].map { ($0, createdBy: state.creators[key]) }
        }
        var next: [ChangeBatch.SetKey: Int64] = [:]
        for (set, written) in Dictionary(grouping: entities, by: { ChangeBatch.SetKey($0.0) })
            .sorted(by: { ($0.key.appID, $0.key.entitySet) < ($1.key.appID, $1.key.entitySet) })
        {
            next[set] = try await takePositions(
                written.count,
                appID: set.appID,
                entitySet: set.entitySet,
                adding: written.count { $0.createdBy != nil },
                connection
            )
        }
        for index in entities.indices {
            let set = ChangeBatch.SetKey(entities[index].0)
            entities[index].0.position = next[set, default: 0]
            next[set, default: 0] += 1
        }
        // One app's sets, so a set's name finds its subset.
        var subsets: [String: EntitySubset] = [:]
        for (set, schema) in state.schemas { subsets[set.entitySet] = schema.subset }
        for start in stride(from: 0, to: entities.count, by: SQL.rowsPerStatement) {
            let rows = Array(entities[start..<min(start + SQL.rowsPerStatement, entities.count)])
            try await connection.execute(EntityRecord.upsert(rows, subsets: subsets))
            let written = rows.map { entity, _ in
                (
                    entity,
                    state.stored[ChangeBatch.EntityKey(appID: entity.appID, entitySet: entity.entitySet, id: entity.id)]
                )
            }
            if let moves = EntityRecord.moves(written, subsets: subsets) { try await connection.execute(moves) }
        }
        let rows = try state.recorded.map { recorded throws(StorageError) -> SQL in
            let (application, change) = (recorded.application, recorded.application.change)
            return """
                (\(change.id.lowercasedText), \(application.appID), \(change.registrationID), \(recorded.sequence),
                    \(change.author), \(application.carrier), \(change.entitySet), \(change.entityID),
                    \(recorded.result.outcome.rawValue), \(try ServerSchema.encode(result: recorded.result)),
                    \(application.receivedAt))
                """
        }
        for start in stride(from: 0, to: rows.count, by: SQL.rowsPerStatement) {
            try await connection.execute(
                """
                INSERT INTO changes (change_id, app_id, registration_id, sequence, author, carrier, entity_set,
                    entity_id, outcome, result, received_at)
                VALUES \(SQL.joined(Array(rows[start..<min(start + SQL.rowsPerStatement, rows.count)]), separator: ", "))
                """
            )
        }
        for (index, application) in state.queued.enumerated() {
            let change = application.change
            try await connection.execute(
                """
                INSERT INTO deliveries (change_id, app_id, entity_set, entity_id, change, carrier, received_at, queued,
                    attempts, next_attempt_at, parked)
                VALUES (\(change.id.lowercasedText), \(application.appID), \(change.entitySet), \(change.entityID),
                    \(try ServerSchema.encode(change: change)), \(application.carrier), \(application.receivedAt),
                    \(application.receivedAt.milliseconds * 1_000 + Int64(index)), 0, \(application.receivedAt), \(false))
                ON CONFLICT (change_id) DO NOTHING
                """
            )
        }
        for (appID, counts) in activity(of: state.recorded) {
            guard let counting = counting(counts, appID: appID, at: state.recorded[0].application.receivedAt)
            else { continue }
            try await connection.execute(counting)
        }
    }

    /// The overview's counts of the changes a batch recorded, per app.
    private static func activity(of recorded: [ChangeBatch.Recorded]) -> [String: [ActivityKind: Int]] {
        var counts: [String: [ActivityKind: Int]] = [:]
        for change in recorded {
            counts[change.application.appID, default: [:]][.changes, default: 0] += 1
            let kind: ActivityKind? =
                switch change.result.outcome {
                case .conflict: .conflicts
                case .rejected: .refusedChanges
                case .applied, .duplicate, .held: nil
                }
            if let kind { counts[change.application.appID, default: [:]][kind, default: 0] += 1 }
        }
        return counts
    }
}

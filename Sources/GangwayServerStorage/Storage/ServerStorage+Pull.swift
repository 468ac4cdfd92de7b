import Foundation
import GangwayProtocol

extension ServerStorage {
    /// Applies one part of a read of the set's data source (rows as the backend gave
    /// them: an entity with its fields, or `nil` fields for one it removed) in one
    /// transaction, merged with what devices changed since (one rule, below), and renews
    /// the read's claim to `until`.
    ///
    /// The backend's last version of each entity it gave is kept. A device's change is
    /// what differs from that version. For each row:
    /// - an entity no device changed since (its fields are the backend's last version)
    ///   takes the backend's new version whole;
    /// - an entity a device changed since is merged field by field: a field the device
    ///   changed (set, changed or removed) keeps the device's value, every other field
    ///   takes the backend's. The device's change is not lost, and it stays a change
    ///   against the backend's version until the backend takes it (or refuses it);
    /// - an entity a device removed since stays removed;
    /// - an entity the backend never gave (put by an admin or an ingest) takes the
    ///   backend's version whole: the backend is the source of truth for what it has;
    /// - an entity the backend removed is removed, unless a device changed it since, when
    ///   it stays with the device's change (the backend's version is forgotten, so it is
    ///   kept from then on as one the backend never gave).
    ///
    /// A row the set's schema refuses, or a new entity past `limit`, is refused alone; an
    /// entity refused still counts as seen by the read, with the backend's version it had.
    /// Refusals are numbered by `IngestRow.line`: the row's place in the read.
    /// - Throws: ``StorageError/Code-swift.enum/conflict`` when the read no longer holds
    ///   its claim (another server took the source after the claim lapsed); nothing of
    ///   the part applies.
    public func pull(
        _ rows: [IngestRow],
        into entitySet: String,
        of appID: String,
        run: Int64,
        holdingUntil until: Date,
        limit: Int,
        by author: String,
        at date: Date
    ) async throws(StorageError) -> PullTally {
        return try await writing(forgetting: [.key(.entitySet(appID: appID, entitySet: entitySet))]) {
            () throws(StorageError) in
            let kind = kind
            return try await queries.write(locking: [Self.writers(of: appID, entitySet)]) { connection in
                let holds = try await connection.rows(
                    """
                    UPDATE data_sources SET running_until = \(until)
                    WHERE app_id = \(appID) AND entity_set = \(entitySet) AND run = \(run) RETURNING run
                    """
                )
                guard !holds.isEmpty else {
                    throw StorageError(.conflict, "Another read of the data source has taken it.")
                }
                return try await Self.applyBackend(
                    rows,
                    into: entitySet,
                    of: appID,
                    run: run,
                    limit: limit,
                    by: author,
                    at: date,
                    kind,
                    connection
                )
            }
        }
    }

    /// Applies rows as the backend gave them to a set, by the rule of
    /// ``pull(_:into:of:run:holdingUntil:limit:by:at:)``, inside the caller's transaction,
    /// recording each as seen by read `run`.
    static func applyBackend(
        _ rows: [IngestRow],
        into entitySet: String,
        of appID: String,
        run: Int64,
        limit: Int,
        by author: String,
        at date: Date,
        _ kind: StorageKind,
        _ connection: any SQLConnection
    ) async throws -> PullTally {
        // The last row of each entity is the one that counts.
        var last: [String: IngestRow] = [:]
        for row in rows { last[row.id] = row }
        let ids = Array(last.keys)
        guard !ids.isEmpty else { return PullTally() }
        let state = try await Self.partState(of: ids, in: appID, entitySet, kind, connection)
        var live = state.live
        let (previous, schema) = (state.previous, state.schema)
        let inSet: SQL = "app_id = \(appID) AND entity_set = \(entitySet) AND \(state.named)"
        var removedByDevice: Set<String> = []
        var backend: [String: [String: String]] = [:]
        for row in try await connection.rows("SELECT id, fields FROM pulled_entities WHERE \(inSet)") {
            let id: String = try row("id")
            backend[id] = try ServerSchema.decodeFields(try row("fields"))
            if previous[id] == nil { removedByDevice.insert(id) }
        }
        let startingLive = live
        var tally = PullTally()
        var current = previous.mapValues { Optional($0) }
        var touched: [String] = []
        var versions: [(id: String, fields: String)] = []
        var forgotten: [String] = []
        for row in last.values.sorted(by: { $0.line < $1.line }) {
            let entity = previous[row.id]
            let base = backend[row.id]
            let changedByDevice = base.map { base in entity.map { $0.fields != base } ?? true } ?? false
            guard let fields = row.fields else {
                if base != nil { forgotten.append(row.id) }
                if entity != nil, base != nil, !changedByDevice {
                    current[row.id] = .some(nil)
                    live -= 1
                    touched.append(row.id)
                    tally.removed += 1
                } else if entity != nil {
                    tally.kept += 1
                }
                continue
            }
            if removedByDevice.contains(row.id) {
                // A device removed it since the backend's last version: it stays removed.
                versions.append((row.id, ServerSchema.encode(fields: fields)))
                tally.kept += 1
                continue
            }
            var merged = fields
            if let entity, let base, changedByDevice {
                merged = Self.merge(device: entity.fields, base: base, backend: fields)
                tally.kept += 1
            }
            if let schema {
                do throws(EntitySchemaError) {
                    try schema.check(merged, in: entitySet)
                } catch {
                    tally.refusedCount += 1
                    tally.refused.append(
                        .init(line: row.line, id: row.id, code: "FIELD_NOT_VALID", message: error.message)
                    )
                    // Still the backend's: seen by this read, its last version kept.
                    if let base { versions.append((row.id, ServerSchema.encode(fields: base))) }
                    continue
                }
            }
            guard entity != nil || live < limit else {
                tally.refusedCount += 1
                tally.refused.append(
                    .init(line: row.line, id: row.id, code: "ENTITY_SET_FULL", message: "The entity set is full.")
                )
                continue
            }
            versions.append((row.id, ServerSchema.encode(fields: fields)))
            if entity?.fields == merged { continue }
            if entity == nil { live += 1 }
            current[row.id] = .some(
                EntityRecord(
                    appID: appID,
                    entitySet: entitySet,
                    id: row.id,
                    fields: merged,
                    version: entity?.version ?? 0,
                    updatedAt: date,
                    updatedBy: author,
                    fieldVersions: entity?.fieldVersions ?? [:]
                )
            )
            touched.append(row.id)
            tally.written += 1
        }
        tally.refused = Array(tally.refused.prefix(PullTally.refusalsKept))
        _ = try await Self.write(
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
        try await Self.keepBackendVersions(
            versions,
            forgetting: forgotten,
            of: appID,
            entitySet,
            run: run,
            kind,
            connection
        )
        return tally
    }

    /// An entity a device changed since the backend's `base` version, merged with the
    /// backend's new version: each field the device changed (its value differs from the
    /// base's, or one of them lacks it) keeps the device's value, or its absence; every
    /// other field takes the backend's.
    static func merge(device: [String: String], base: [String: String], backend: [String: String]) -> [String: String] {
        var merged: [String: String] = [:]
        for name in Set(device.keys).union(base.keys).union(backend.keys) {
            let value = device[name] != base[name] ? device[name] : backend[name]
            if let value { merged[name] = value }
        }
        return merged
    }

    /// Records the backend's version of each entity of a part (`kept`, its fields as
    /// stored) as seen by read `run`, and forgets those it removed.
    private static func keepBackendVersions(
        _ kept: [(id: String, fields: String)],
        forgetting forgotten: [String],
        of appID: String,
        _ entitySet: String,
        run: Int64,
        _ kind: StorageKind,
        _ connection: any SQLConnection
    ) async throws {
        if !forgotten.isEmpty {
            let named: SQL =
                kind == .sqlite
                ? "id IN (SELECT value FROM json_each(\(array: forgotten)))" : "id = ANY(\(array: forgotten))"
            try await connection.execute(
                "DELETE FROM pulled_entities WHERE app_id = \(appID) AND entity_set = \(entitySet) AND \(named)"
            )
        }
        guard !kept.isEmpty else { return }
        let upsert: SQL =
            "ON CONFLICT (app_id, entity_set, id) DO UPDATE SET run = excluded.run, fields = excluded.fields"
        switch kind {
        case .sqlite:
            // The IDs and their fields as one JSON object of texts: a value bound once.
            for start in stride(from: 0, to: kept.count, by: 5_000) {
                let chunk = kept[start..<min(kept.count, start + 5_000)]
                try await connection.execute(
                    """
                    INSERT INTO pulled_entities (app_id, entity_set, id, run, fields)
                    SELECT \(appID), \(entitySet), key, \(run), value
                    FROM json_each(\(FlatJSON.text(Dictionary(chunk.map { ($0.id, $0.fields) }) { $1 })))
                    WHERE true \(upsert)
                    """
                )
            }
        case .postgresql:
            try await connection.execute(
                """
                INSERT INTO pulled_entities (app_id, entity_set, id, run, fields)
                SELECT \(appID), \(entitySet), row.id, \(run), row.fields
                FROM unnest(\(array: kept.map(\.id))::text[], \(array: kept.map(\.fields))::text[]) AS row(id, fields)
                \(upsert)
                """
            )
        }
    }
}

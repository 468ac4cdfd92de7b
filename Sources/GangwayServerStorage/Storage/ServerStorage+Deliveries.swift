import Foundation
import GangwayProtocol

extension ServerStorage {
    /// Takes up to `limit` changes due for delivery at `date`, each the first waiting of
    /// its entity (a later change of an entity waits for the one before, parked or not),
    /// and holds them until `until`; another process takes none of them meanwhile.
    public func claimDeliveries(at date: Date, until: Date, limit: Int) async throws(StorageError) -> [DeliveryRecord] {
        try await driver.write(locking: []) { connection in
            let rows = try await connection.rows(
                """
                SELECT change_id, app_id, change, carrier, received_at, attempts, parked, last_error FROM deliveries AS d
                WHERE NOT parked AND next_attempt_at <= \(date) AND (running_until IS NULL OR running_until <= \(date))
                    AND NOT EXISTS (SELECT 1 FROM deliveries AS e WHERE e.app_id = d.app_id
                        AND e.entity_set = d.entity_set AND e.entity_id = d.entity_id AND e.queued < d.queued)
                ORDER BY queued LIMIT \(limit)
                """
            )
            let ids = try rows.map { row throws(StorageError) in try row("change_id", as: String.self) }
            guard !ids.isEmpty else { return [] }
            // Taken only if still free: on PostgreSQL another process may have read the
            // same rows, and its update, committed first, leaves them to it.
            let taken = Set(
                try await connection.rows(
                    """
                    UPDATE deliveries SET running_until = \(until)
                    WHERE change_id IN (\(list: ids)) AND (running_until IS NULL OR running_until <= \(date))
                    RETURNING change_id
                    """
                ).map { row throws(StorageError) in try row("change_id", as: String.self) }
            )
            return try rows.filter { row throws(StorageError) in taken.contains(try row("change_id")) }
                .map(DeliveryRecord.init(row:))
        }
    }

    /// Records how the backend answered a delivered change (``DeliveryOutcome``), in one
    /// transaction: for an answer, the change's result (what its author's device gets
    /// when it sends the change again) and, when the backend took it, the backend's entity
    /// as the server's (by the rule of a data source's read); the delivery is then done.
    /// A failure counts the attempt and sets the next. Nothing happens when the delivery
    /// is gone (an operator discarded it).
    /// - Returns: The change's result, for an answer.
    @discardableResult
    public func finishDelivery(
        _ delivery: DeliveryRecord,
        _ outcome: DeliveryOutcome,
        at date: Date
    ) async throws(StorageError) -> ChangeResult? {
        let change = delivery.change
        let id = change.id.lowercasedText
        defer { cache?.drop(.entitySet(appID: delivery.appID, entitySet: change.entitySet)) }
        let kind = kind
        let writers = StorageLock.entityWriters(
            registrations: [change.registrationID],
            entitySets: [delivery.appID + "/" + change.entitySet]
        )
        return try await driver.write(locking: [writers]) { connection in
            guard !(try await connection.rows("SELECT change_id FROM deliveries WHERE change_id = \(id)")).isEmpty
            else { return nil }
            let result: ChangeResult
            switch outcome {
            case .failed(let reason, let retryAt, let park):
                try await connection.execute(
                    """
                    UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = \(retryAt), running_until = NULL,
                        parked = \(park), last_error = \(reason)
                    WHERE change_id = \(id)
                    """
                )
                return nil
            case .refused(let rejection):
                result = ChangeResult(changeID: change.id, rejected: rejection)
            case .accepted(let fields):
                _ = try await Self.applyBackend(
                    [IngestRow(line: 1, id: change.entityID, fields: fields)],
                    into: change.entitySet,
                    of: delivery.appID,
                    run: 0,
                    limit: EntityLimits.entitiesPerSet,
                    by: change.author,
                    at: date,
                    kind,
                    connection
                )
                let version = try await connection.rows(
                    """
                    SELECT version FROM entities WHERE app_id = \(delivery.appID) AND entity_set = \(change.entitySet)
                        AND id = \(change.entityID) AND removed_at IS NULL
                    """
                ).first.map { row throws(StorageError) in try row("version", as: Int64.self) }
                result = ChangeResult(changeID: change.id, outcome: .applied, version: version)
            }
            let reused = try await !connection.rows(
                """
                SELECT 1 FROM changes WHERE registration_id = \(change.registrationID) AND sequence = \(change.sequence)
                """
            ).isEmpty
            try await connection.execute(
                """
                INSERT INTO changes (change_id, app_id, registration_id, sequence, author, carrier, entity_set,
                    entity_id, outcome, result, received_at)
                VALUES (\(id), \(delivery.appID), \(change.registrationID), \(reused ? nil : change.sequence),
                    \(change.author), \(delivery.carrier), \(change.entitySet), \(change.entityID),
                    \(result.outcome.rawValue), \(try ServerSchema.encode(result: result)), \(delivery.receivedAt))
                """
            )
            try await connection.execute("DELETE FROM deliveries WHERE change_id = \(id)")
            let counts: [ActivityKind: Int] =
                result.outcome == .rejected ? [.changes: 1, .refusedChanges: 1] : [.changes: 1]
            if let counting = Self.counting(counts, appID: delivery.appID, at: date) {
                try await connection.execute(counting)
            }
            return result
        }
    }

    /// The deliveries of an app, parked ones or all, oldest first.
    public func deliveries(
        appID: String,
        parkedOnly: Bool = false,
        limit: Int
    ) async throws(StorageError)
        -> [DeliveryRecord]
    {
        let parked: SQL = parkedOnly ? " AND parked" : ""
        return try await all(
            """
            SELECT change_id, app_id, change, carrier, received_at, attempts, parked, last_error FROM deliveries
            WHERE app_id = \(appID)\(parked) ORDER BY queued LIMIT \(limit)
            """,
            DeliveryRecord.init(row:)
        )
    }
}

extension ServerStorage {
    /// The delivery of a change, if it waits.
    public func delivery(appID: String, changeID: String) async throws(StorageError) -> DeliveryRecord? {
        try await all(
            """
            SELECT change_id, app_id, change, carrier, received_at, attempts, parked, last_error FROM deliveries
            WHERE app_id = \(appID) AND change_id = \(changeID)
            """,
            DeliveryRecord.init(row:)
        ).first
    }

    /// Makes a waiting change due now, parked or not, its attempts counted anew; the
    /// delivery as it stands, `nil` when no such change waits.
    public func retryDelivery(
        appID: String,
        changeID: String,
        at date: Date
    ) async throws(StorageError)
        -> DeliveryRecord?
    {
        try await execute(
            """
            UPDATE deliveries SET parked = \(false), attempts = 0, next_attempt_at = \(date)
            WHERE app_id = \(appID) AND change_id = \(changeID)
            """
        )
        return try await delivery(appID: appID, changeID: changeID)
    }
}

extension DeliveryRecord {
    init(row: SQLRow) throws(StorageError) {
        self.init(
            appID: try row("app_id"),
            change: try ServerSchema.decodeChange(try row("change")),
            carrier: try row("carrier"),
            receivedAt: try row("received_at"),
            attempts: try row("attempts"),
            parked: try row("parked"),
            lastError: try row("last_error")
        )
    }
}

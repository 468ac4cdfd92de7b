import Foundation
import GangwayProtocol

extension ServerStorage {
    /// Takes up to `limit` changes due for delivery at `date`, each the first waiting of
    /// its entity (a later change of an entity waits for the one before, parked or not),
    /// and holds them until `until`; another process takes none of them meanwhile.
    public func claimDeliveries(at date: Date, until: Date, limit: Int) async throws(StorageError) -> [DeliveryRecord] {
        // Looked for by a read first: an idle server takes no write lock to find nothing.
        let due = try await all(
            """
            SELECT change_id FROM deliveries
            WHERE NOT parked AND next_attempt_at <= \(date) AND (running_until IS NULL OR running_until <= \(date))
            LIMIT 1
            """
        ) { row throws(StorageError) in try row("change_id", as: String.self) }
        guard !due.isEmpty else { return [] }
        return try await queries.write(locking: []) { connection in
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

    /// Records how the backend answered a delivered change (``DeliveryOutcome``): see
    /// ``finishDeliveries(_:at:)``.
    /// - Returns: The change's result, for an answer.
    @discardableResult
    public func finishDelivery(
        _ delivery: DeliveryRecord,
        _ outcome: DeliveryOutcome,
        at date: Date
    ) async throws(StorageError) -> ChangeResult? {
        try await finishDeliveries([(delivery, outcome)], at: date)[delivery.change.id]
    }

    /// Records how the backend answered delivered changes, all in one transaction: for an
    /// answer, the change's result (what its author's device gets when it sends the change
    /// again) and, when the backend took it, the backend's entity as the server's (by the
    /// rule of a data source's read); the delivery is then done. A failure counts the
    /// attempt and sets the next. A delivery that is gone (an operator discarded it) is
    /// left alone. At most one change of an entity is delivered at a time, so `answered`
    /// holds at most one of each.
    /// - Returns: The results of the changes answered, by change ID.
    @discardableResult
    public func finishDeliveries(
        _ answered: [(delivery: DeliveryRecord, outcome: DeliveryOutcome)],
        at date: Date
    ) async throws(StorageError) -> [UUID: ChangeResult] {
        guard !answered.isEmpty else { return [:] }
        let sets = Set(answered.map { $0.delivery.appID + "/" + $0.delivery.change.entitySet })
        let stale = Set(
            answered.map { ReadCache.Key.entitySet(appID: $0.delivery.appID, entitySet: $0.delivery.change.entitySet) }
        )
        let kind = kind
        let writers = StorageLock.entityWriters(
            registrations: Set(answered.map(\.delivery.change.registrationID)),
            entitySets: sets
        )
        return try await writing(forgetting: stale.map(ReadCache.Drop.key)) { () throws(StorageError) in
            try await queries.write(locking: [writers]) { connection in
                let ids = answered.map { $0.delivery.change.id.lowercasedText }
                let waiting = Set(
                    try await connection.rows("SELECT change_id FROM deliveries WHERE change_id IN (\(list: ids))").map
                    {
                        row throws(StorageError) in try row("change_id", as: String.self)
                    }
                )
                var results: [UUID: ChangeResult] = [:]
                var accepted: [String: [(DeliveryRecord, [String: String])]] = [:]
                for (delivery, outcome) in answered where waiting.contains(delivery.change.id.lowercasedText) {
                    let change = delivery.change
                    switch outcome {
                    case .failed(let reason, let retryAt, let park):
                        try await connection.execute(
                            """
                            UPDATE deliveries SET attempts = attempts + 1, next_attempt_at = \(retryAt),
                                running_until = NULL, parked = \(park), last_error = \(reason)
                            WHERE change_id = \(change.id.lowercasedText)
                            """
                        )
                    case .refused(let rejection):
                        results[change.id] = ChangeResult(changeID: change.id, rejected: rejection)
                    case .accepted(let fields):
                        // By set and author: the entities written are by their change's author.
                        accepted[delivery.appID + "/" + change.entitySet + "/" + change.author, default: []].append(
                            (delivery, fields)
                        )
                    }
                }
                for (_, entities) in accepted {
                    let (appID, entitySet) = (entities[0].0.appID, entities[0].0.change.entitySet)
                    // Seen by the source's latest read: a full read under way does not take
                    // them for ones the backend no longer has.
                    let run =
                        try await connection.rows(
                            "SELECT run FROM data_sources WHERE app_id = \(appID) AND entity_set = \(entitySet)"
                        ).first.map { row throws(StorageError) in try row("run", as: Int64.self) } ?? 0
                    _ = try await Self.applyBackend(
                        entities.enumerated().map { index, item in
                            IngestRow(line: index + 1, id: item.0.change.entityID, fields: item.1)
                        },
                        into: entitySet,
                        of: appID,
                        run: run,
                        limit: EntityLimits.entitiesPerSet,
                        by: entities[0].0.change.author,
                        at: date,
                        kind,
                        connection
                    )
                    var versions: [String: Int64] = [:]
                    for row in try await connection.rows(
                        """
                        SELECT id, version FROM entities WHERE app_id = \(appID) AND entity_set = \(entitySet)
                            AND id IN (\(list: entities.map(\.0.change.entityID))) AND removed_at IS NULL
                        """
                    ) {
                        versions[try row("id")] = try row("version")
                    }
                    for (delivery, _) in entities {
                        let change = delivery.change
                        results[change.id] = ChangeResult(
                            changeID: change.id,
                            outcome: .applied,
                            version: versions[change.entityID]
                        )
                    }
                }
                let ended = answered.filter { results[$0.delivery.change.id] != nil }.map(\.delivery)
                guard !ended.isEmpty else { return results }
                var used: Set<String> = []
                for row in try await connection.rows(
                    """
                    SELECT registration_id, sequence FROM changes
                    WHERE registration_id IN (\(list: Array(Set(ended.map(\.change.registrationID)))))
                        AND sequence IN (\(list: Array(Set(ended.map(\.change.sequence)))))
                    """
                ) {
                    used.insert("\(try row("registration_id", as: String.self))/\(try row("sequence", as: Int64.self))")
                }
                var rows: [SQL] = []
                var counts: [String: [ActivityKind: Int]] = [:]
                for delivery in ended {
                    let change = delivery.change
                    guard let result = results[change.id] else { continue }
                    let reused = !used.insert("\(change.registrationID)/\(change.sequence)").inserted
                    rows.append(
                        """
                        (\(change.id.lowercasedText), \(delivery.appID), \(change.registrationID),
                            \(reused ? nil : change.sequence), \(change.author), \(delivery.carrier), \(change.entitySet),
                            \(change.entityID), \(result.outcome.rawValue), \(try ServerSchema.encode(result: result)),
                            \(delivery.receivedAt))
                        """
                    )
                    counts[delivery.appID, default: [:]][.changes, default: 0] += 1
                    if result.outcome == .rejected {
                        counts[delivery.appID, default: [:]][.refusedChanges, default: 0] += 1
                    }
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
                try await connection.execute(
                    "DELETE FROM deliveries WHERE change_id IN (\(list: ended.map(\.change.id.lowercasedText)))"
                )
                for (appID, counted) in counts {
                    if let counting = Self.counting(counted, appID: appID, at: date) {
                        try await connection.execute(counting)
                    }
                }
                return results
            }
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

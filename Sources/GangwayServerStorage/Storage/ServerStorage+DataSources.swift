import Foundation

extension ServerStorage {
    /// Adds a data source, or changes one, keeping where it stands; `true` when it is new.
    /// A source that now reads another destination, path or key forgets its delta link:
    /// its next read is a full one.
    public func putDataSource(_ source: DataSourceRecord) async throws(StorageError) -> Bool {
        try await queries.write(locking: []) { connection in
            let existing = try await connection.rows(
                """
                SELECT destination, path, key_property FROM data_sources
                WHERE app_id = \(source.appID) AND entity_set = \(source.entitySet)
                """
            ).first
            guard let existing else {
                try await connection.execute(
                    """
                    INSERT INTO data_sources (app_id, entity_set, destination, path, key_property, every,
                        next_run_at, full_requested, run, delivers, created_at)
                    VALUES (\(source.appID), \(source.entitySet), \(source.destination), \(source.path),
                        \(source.keyProperty), \(source.every), \(source.state.nextRunAt), \(false), 0,
                        \(source.delivers), \(source.createdAt))
                    """
                )
                return true
            }
            let moved =
                try existing("destination", as: String.self) != source.destination
                || existing("path", as: String.self) != source.path
                || existing("key_property", as: String.self) != source.keyProperty
            let forget: SQL = moved ? ", delta_link = NULL, full_requested = \(true)" : ""
            try await connection.execute(
                """
                UPDATE data_sources SET destination = \(source.destination), path = \(source.path),
                    key_property = \(source.keyProperty), every = \(source.every), delivers = \(source.delivers),
                    next_run_at = \(source.state.nextRunAt)\(forget)
                WHERE app_id = \(source.appID) AND entity_set = \(source.entitySet)
                """
            )
            return false
        }
    }

    /// The data source of an entity set, if it has one.
    public func dataSource(appID: String, entitySet: String) async throws(StorageError) -> DataSourceRecord? {
        try await all(
            "\(DataSourceRecord.select) WHERE app_id = \(appID) AND entity_set = \(entitySet)",
            DataSourceRecord.init(row:)
        ).first
    }

    /// The app's data sources, by entity set.
    public func dataSources(appID: String) async throws(StorageError) -> [DataSourceRecord] {
        try await all(
            "\(DataSourceRecord.select) WHERE app_id = \(appID) ORDER BY entity_set",
            DataSourceRecord.init(row:)
        )
    }

    /// The sources whose next read is due at `date` and that no read holds: app and set.
    public func dataSourcesDue(at date: Date) async throws(StorageError) -> [(appID: String, entitySet: String)] {
        try await all(
            """
            SELECT app_id, entity_set FROM data_sources
            WHERE next_run_at IS NOT NULL AND next_run_at <= \(date)
                AND (running_until IS NULL OR running_until <= \(date))
            ORDER BY next_run_at
            """
        ) { row throws(StorageError) in (try row("app_id"), try row("entity_set")) }
    }

    /// Removes a data source and the backend's versions it kept; the set's entities stay.
    /// `false` when the set had none.
    public func deleteDataSource(appID: String, entitySet: String) async throws(StorageError) -> Bool {
        try await queries.write(locking: [Self.writers(of: appID, entitySet)]) { connection in
            try await connection.execute(
                "DELETE FROM pulled_entities WHERE app_id = \(appID) AND entity_set = \(entitySet)"
            )
            return try await connection.rows(
                "DELETE FROM data_sources WHERE app_id = \(appID) AND entity_set = \(entitySet) RETURNING entity_set"
            ).count == 1
        }
    }

    /// Asks for a read of the source as soon as a server takes it (a full one when
    /// `full`); the source as it stands, `nil` when the set has none.
    public func requestPull(
        appID: String,
        entitySet: String,
        full: Bool,
        at date: Date
    ) async throws(StorageError) -> DataSourceRecord? {
        try await execute(
            """
            UPDATE data_sources SET next_run_at = \(date),
                full_requested = (full_requested OR \(full))
            WHERE app_id = \(appID) AND entity_set = \(entitySet)
            """
        )
        return try await dataSource(appID: appID, entitySet: entitySet)
    }

    /// Takes the source's next read, unless another holds it: the read's number, whether
    /// it is to be a full one, and the delta link to read from otherwise. The claim holds
    /// until `until`; each part the read writes renews it
    /// (``pull(_:into:of:run:holdingUntil:limit:by:at:)``).
    public func claimPull(
        appID: String,
        entitySet: String,
        at date: Date,
        until: Date
    ) async throws(StorageError) -> DataSourceClaim? {
        try await queries.write(locking: []) { connection in
            guard
                let row = try await connection.rows(
                    """
                    SELECT run, full_requested, delta_link FROM data_sources
                    WHERE app_id = \(appID) AND entity_set = \(entitySet)
                        AND (running_until IS NULL OR running_until <= \(date))
                    """
                ).first
            else { return nil }
            let run = try row("run", as: Int64.self) + 1
            let full = try row("full_requested", as: Bool.self)
            let link = try row("delta_link", as: String?.self)
            // Taken only if no other process took it since it was read: on PostgreSQL two
            // may read it at once, and the update committed first moves `run` on.
            let taken = try await connection.rows(
                """
                UPDATE data_sources SET run = \(run), running_until = \(until), next_run_at = NULL,
                    full_requested = \(false)
                WHERE app_id = \(appID) AND entity_set = \(entitySet) AND run = \(run - 1)
                RETURNING run
                """
            )
            guard !taken.isEmpty else { return nil }
            return DataSourceClaim(run: run, deltaLink: full ? nil : link)
        }
    }

    /// Ends read `run` of the source with how it went: the delta link the next read
    /// starts from (`deltaLink`; `nil` keeps the one there was), the next read due
    /// `every` seconds on (unless one was asked for meanwhile), and a full read asked for
    /// again when `full` failed. Does nothing when another read has taken the source.
    public func finishPull(
        appID: String,
        entitySet: String,
        run: Int64,
        outcome: DataSourceRun,
        deltaLink: String?,
        retryFull: Bool,
        at date: Date
    ) async throws(StorageError) {
        let text = try ServerSchema.encode(run: outcome)
        let link: SQL = deltaLink.map { ", delta_link = \($0)" } ?? ""
        try await execute(
            """
            UPDATE data_sources SET running_until = NULL, last_run = \(text),
                next_run_at = COALESCE(next_run_at, CASE WHEN every IS NULL THEN NULL ELSE \(date) + every * 1000 END),
                full_requested = (full_requested OR \(retryFull))\(link)
            WHERE app_id = \(appID) AND entity_set = \(entitySet) AND run = \(run)
            """
        )
    }

    /// The IDs of entities the backend gave before read `run` and not since, a page at a
    /// time after `after`: at the end of a full read, those the backend no longer has.
    /// Found by one walk of the set's backend versions in ID order (no index of the read
    /// that saw each, which every row of every read would write).
    public func pulledIDs(
        in entitySet: String,
        of appID: String,
        before run: Int64,
        after: String,
        limit: Int
    ) async throws(StorageError) -> [String] {
        try await all(
            """
            SELECT id FROM pulled_entities
            WHERE app_id = \(appID) AND entity_set = \(entitySet) AND run < \(run) AND id > \(after)
            ORDER BY id LIMIT \(limit)
            """
        ) { row throws(StorageError) in try row("id") }
    }
}

/// A read of a data source, taken (``ServerStorage/claimPull(appID:entitySet:at:until:)``).
public struct DataSourceClaim: Sendable, Hashable {
    /// The read's number: its parts renew the claim by it.
    public var run: Int64
    /// The link to read the changes from; `nil` for a full read.
    public var deltaLink: String?
}

extension DataSourceRecord {
    static let select: SQL = """
        SELECT app_id, entity_set, destination, path, key_property, every, delta_link, next_run_at, full_requested,
            run, running_until, last_run, delivers, created_at FROM data_sources
        """

    init(row: SQLRow) throws(StorageError) {
        self.init(
            appID: try row("app_id"),
            entitySet: try row("entity_set"),
            destination: try row("destination"),
            path: try row("path"),
            keyProperty: try row("key_property"),
            every: try row("every"),
            delivers: try row("delivers"),
            createdAt: try row("created_at"),
            state: DataSourceState(
                nextRunAt: try row("next_run_at"),
                fullRequested: try row("full_requested"),
                run: try row("run"),
                runningUntil: try row("running_until"),
                hasDeltaLink: try row("delta_link", as: String?.self) != nil,
                last: try row("last_run", as: String?.self).map { text throws(StorageError) in
                    try ServerSchema.decodeRun(text)
                }
            )
        )
    }
}

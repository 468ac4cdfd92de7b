import Foundation

extension ServerStorage {
    /// Adds a destination, or replaces the one of that name (keeping when it was added):
    /// `true` when it is new.
    public func putDestination(_ destination: DestinationRecord) async throws(StorageError) -> Bool {
        defer { cache?.drop(.destination(appID: destination.appID, name: destination.name)) }
        return try await driver.write(locking: []) { connection in
            let existing = try await connection.rows(
                """
                SELECT created_at FROM destinations WHERE app_id = \(destination.appID) AND name = \(destination.name)
                """
            )
            if existing.isEmpty {
                try await connection.execute(
                    """
                    INSERT INTO destinations (app_id, name, url, authentication, credential_header, credential, created_at)
                    VALUES (\(destination.appID), \(destination.name), \(destination.url),
                        \(destination.authentication.rawValue), \(destination.credentialHeader),
                        \(destination.sealedCredential), \(destination.createdAt))
                    """
                )
                return true
            }
            try await connection.execute(
                """
                UPDATE destinations SET url = \(destination.url), authentication = \(destination.authentication.rawValue),
                    credential_header = \(destination.credentialHeader), credential = \(destination.sealedCredential)
                WHERE app_id = \(destination.appID) AND name = \(destination.name)
                """
            )
            return false
        }
    }

    public func destination(appID: String, name: String) async throws(StorageError) -> DestinationRecord? {
        try await cached(.destination(appID: appID, name: name)) { () throws(StorageError) in
            try await first(
                "\(DestinationRecord.select) WHERE app_id = \(appID) AND name = \(name)",
                DestinationRecord.init
            )
        }
    }

    /// The app's destinations, by name.
    public func destinations(appID: String) async throws(StorageError) -> [DestinationRecord] {
        try await all("\(DestinationRecord.select) WHERE app_id = \(appID) ORDER BY name", DestinationRecord.init)
    }

    /// Removes a destination and its counts; `false` when there was none.
    public func deleteDestination(appID: String, name: String) async throws(StorageError) -> Bool {
        defer { cache?.drop(.destination(appID: appID, name: name)) }
        return try await driver.write(locking: []) { connection in
            try await connection.execute(
                "DELETE FROM destination_requests WHERE app_id = \(appID) AND destination = \(name)"
            )
            return try await connection.rows(
                "DELETE FROM destinations WHERE app_id = \(appID) AND name = \(name) RETURNING name"
            ).count == 1
        }
    }

    /// Counts `count` requests forwarded to a destination, in the hour of `date`, under
    /// the backend's `status` (0: it could not be reached).
    public func countDestinationRequests(
        appID: String,
        destination: String,
        status: Int,
        count: Int,
        at date: Date
    ) async throws(StorageError) {
        try await execute(
            """
            INSERT INTO destination_requests (app_id, destination, status, bucket, count)
            VALUES (\(appID), \(destination), \(status), \(ActivityBucket.hour.start(of: date)), \(count))
            ON CONFLICT (app_id, destination, bucket, status)
            DO UPDATE SET count = destination_requests.count + excluded.count
            """
        )
    }

    /// The requests forwarded to each of the app's destinations since `date`, by
    /// destination and status.
    public func destinationRequests(
        appID: String,
        since date: Date
    ) async throws(StorageError) -> [String: [Int: Int]] {
        let rows = try await all(
            """
            SELECT destination, status, CAST(SUM(count) AS BIGINT) AS total FROM destination_requests
            WHERE app_id = \(appID) AND bucket >= \(ActivityBucket.hour.start(of: date))
            GROUP BY destination, status
            """
        ) { row throws(StorageError) -> (String, Int, Int) in
            (try row("destination"), try row("status"), try row("total"))
        }
        var counts: [String: [Int: Int]] = [:]
        for (destination, status, total) in rows { counts[destination, default: [:]][status] = total }
        return counts
    }
}

extension DestinationRecord {
    static let select: SQL = """
        SELECT app_id, name, url, authentication, credential_header, credential, created_at FROM destinations
        """

    init(row: SQLRow) throws(StorageError) {
        guard let authentication = Authentication(rawValue: try row("authentication")) else {
            throw StorageError(.corrupt, "a destination has an unknown authentication")
        }
        self.init(
            appID: try row("app_id"),
            name: try row("name"),
            url: try row("url"),
            authentication: authentication,
            credentialHeader: try row("credential_header"),
            sealedCredential: try row("credential"),
            createdAt: try row("created_at")
        )
    }
}

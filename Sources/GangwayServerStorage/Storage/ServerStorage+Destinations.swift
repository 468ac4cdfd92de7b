import Foundation

extension ServerStorage {
    /// Adds a destination, or replaces the one of that name (keeping when it was added):
    /// `true` when it is new.
    public func putDestination(_ destination: DestinationRecord) async throws(StorageError) -> Bool {
        return try await writing(forgetting: [.key(.destination(appID: destination.appID, name: destination.name))]) {
            () throws(StorageError) in
            return try await queries.write(locking: []) { connection in
                let existing = try await connection.rows(
                    """
                    SELECT created_at FROM destinations WHERE app_id = \(destination.appID) AND name = \(destination.name)
                    """
                )
                try await connection.execute(
                    try .insert(
                        into: "destinations",
                        destination,
                        upsertingOn: ["app_id", "name"],
                        keeping: ["created_at"]
                    )
                )
                return existing.isEmpty
            }
        }
    }

    public func destination(appID: String, name: String) async throws(StorageError) -> DestinationRecord? {
        try await cached(.destination(appID: appID, name: name)) { () throws(StorageError) in
            try await first("SELECT * FROM destinations WHERE app_id = \(appID) AND name = \(name)")
        }
    }

    /// The app's destinations, by name.
    public func destinations(appID: String) async throws(StorageError) -> [DestinationRecord] {
        try await all("SELECT * FROM destinations WHERE app_id = \(appID) ORDER BY name")
    }

    /// Removes a destination and its counts; `false` when there was none.
    public func deleteDestination(appID: String, name: String) async throws(StorageError) -> Bool {
        return try await writing(forgetting: [.key(.destination(appID: appID, name: name))]) {
            () throws(StorageError) in
            return try await queries.write(locking: []) { connection in
                try await connection.execute(
                    "DELETE FROM destination_requests WHERE app_id = \(appID) AND destination = \(name)"
                )
                return try await connection.rows(
                    "DELETE FROM destinations WHERE app_id = \(appID) AND name = \(name) RETURNING name"
                ).count == 1
            }
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

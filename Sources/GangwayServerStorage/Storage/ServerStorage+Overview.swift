import Foundation

/// The server's figures at a glance, counted by the database: each from an index or a
/// small table, never by reading every change (the overview's charts count those as
/// they happen).
public struct ServerFigures: Sendable, Hashable {
    public var apps: Int
    public var users: Int
    /// Device registrations that are neither locked nor wiped.
    public var activeDevices: Int
    public var operators: Int
}

extension ServerStorage {
    public func figures() async throws(StorageError) -> ServerFigures {
        let figures = try await first(
            """
            SELECT (SELECT COUNT(*) FROM apps) AS apps, (SELECT COUNT(*) FROM users) AS users,
                (SELECT COUNT(*) FROM devices WHERE status = 'active') AS devices,
                (SELECT COUNT(*) FROM operators) AS operators
            """
        ) { row throws(StorageError) in
            ServerFigures(
                apps: try row("apps"),
                users: try row("users"),
                activeDevices: try row("devices"),
                operators: try row("operators")
            )
        }
        guard let figures else { throw StorageError(.corrupt, "the figures could not be counted") }
        return figures
    }
}

extension ServerStorage {
    /// The first `limit` blocked users by name, and how many are blocked: one statement,
    /// so the two agree.
    public func blockedUsers(limit: Int) async throws(StorageError) -> (names: [String], count: Int) {
        let rows = try await queries.read(
            """
            SELECT username, COUNT(*) OVER () AS total FROM users WHERE blocked
            ORDER BY username LIMIT \(max(limit, 1))
            """
        )
        let names = try rows.prefix(limit).map { row throws(StorageError) -> String in try row("username") }
        return (names, try rows.first.map { row throws(StorageError) -> Int in try row("total") } ?? 0)
    }

    /// How many registrations (of `appID`'s, or of every app) are locked.
    public func lockedDeviceCount(appID: String?) async throws(StorageError) -> Int {
        let app: SQL = appID.map { "AND app_id = \($0)" } ?? ""
        return try await counted("SELECT COUNT(*) AS count FROM devices WHERE status = 'locked' \(app)")
    }

    /// `appID`'s active registrations not heard from since `cutoff`: the `limit` longest
    /// silent first, and how many there are.
    public func silentDevices(
        appID: String,
        since cutoff: Date,
        limit: Int
    ) async throws(StorageError) -> (devices: [DeviceRecord], count: Int) {
        let silent: SQL = """
            app_id = \(appID) AND status = 'active'
                AND (last_contact_at < \(cutoff) OR (last_contact_at IS NULL AND registered_at < \(cutoff)))
            """
        // One statement, so the list and the count agree.
        let rows = try await queries.read(
            """
            SELECT *, COUNT(*) OVER () AS total FROM devices WHERE \(silent)
            ORDER BY COALESCE(last_contact_at, registered_at), registration_id LIMIT \(max(limit, 1))
            """
        )
        let devices = try rows.prefix(limit).map { row throws(StorageError) in try row.decode(DeviceRecord.self) }
        return (devices, try rows.first.map { row throws(StorageError) -> Int in try row("total") } ?? 0)
    }

    /// The `count` column of the one row `statement` returns.
    private func counted(_ statement: SQL) async throws(StorageError) -> Int {
        try await first(statement) { row throws(StorageError) -> Int in try row("count") } ?? 0
    }
}

import Foundation

/// The server's figures at a glance, counted by the database.
public struct ServerFigures: Sendable, Hashable {
    public var apps: Int
    public var users: Int
    /// Device registrations that are neither locked nor wiped.
    public var activeDevices: Int
    public var changes: Int
    public var conflicts: Int
    public var operators: Int
}

extension ServerStorage {
    public func figures() async throws(StorageError) -> ServerFigures {
        let figures = try await first(
            """
            SELECT (SELECT COUNT(*) FROM apps) AS apps, (SELECT COUNT(*) FROM users) AS users,
                (SELECT COUNT(*) FROM devices WHERE status = 'active') AS devices,
                (SELECT COUNT(*) FROM changes) AS changes,
                (SELECT COUNT(*) FROM changes WHERE outcome = 'conflict') AS conflicts,
                (SELECT COUNT(*) FROM operators) AS operators
            """
        ) { row throws(StorageError) in
            ServerFigures(
                apps: try row("apps"),
                users: try row("users"),
                activeDevices: try row("devices"),
                changes: try row("changes"),
                conflicts: try row("conflicts"),
                operators: try row("operators")
            )
        }
        guard let figures else { throw StorageError(.corrupt, "the figures could not be counted") }
        return figures
    }
}

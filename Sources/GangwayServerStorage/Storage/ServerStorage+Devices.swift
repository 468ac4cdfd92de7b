import Foundation

extension ServerStorage {
    public func device(appID: String, username: String, deviceID: String) async throws(StorageError) -> DeviceRecord? {
        try await cached(.device(appID: appID, username: username, deviceID: deviceID)) { () throws(StorageError) in
            try await first(
                """
                SELECT * FROM devices WHERE app_id = \(appID) AND username = \(username) AND device_id = \(deviceID)
                """
            )
        }
    }

    public func device(appID: String, registrationID: String) async throws(StorageError) -> DeviceRecord? {
        try await first(
            "SELECT * FROM devices WHERE app_id = \(appID) AND registration_id = \(registrationID)"
        )
    }

    public func devices(appID: String) async throws(StorageError) -> [DeviceRecord] {
        try await all(
            "SELECT * FROM devices WHERE app_id = \(appID) ORDER BY registered_at, registration_id"
        )
    }

    /// A page of `appID`'s registrations by user and registration ID: those whose user's
    /// name starts with `userPrefix` (any case), in `status` if given, after the
    /// registration `after` (none when it is gone), at most `limit`. The database walks its
    /// index of the app's registrations by user from `after`.
    public func devices(
        appID: String,
        userPrefix: String,
        status: DeviceStatus?,
        after: String?,
        limit: Int
    ) async throws(StorageError) -> [DeviceRecord] {
        var conditions: [SQL] = [
            "app_id = \(appID)", "LOWER(username) LIKE \(Self.startsWith(userPrefix)) ESCAPE '\\'",
        ]
        if let status { conditions.append("status = \(status.rawValue)") }
        if let after {
            conditions.append(
                """
                (username, registration_id) > (SELECT username, registration_id FROM devices
                    WHERE app_id = \(appID) AND registration_id = \(after))
                """
            )
        }
        return try await all(
            """
            SELECT * FROM devices WHERE \(SQL.joined(conditions, separator: " AND "))
            ORDER BY username, registration_id LIMIT \(limit)
            """
        )
    }

    /// How many registrations ``devices(appID:userPrefix:status:after:limit:)`` finds over
    /// all its pages.
    public func deviceCount(appID: String, userPrefix: String, status: DeviceStatus?) async throws(StorageError) -> Int
    {
        var conditions: [SQL] = [
            "app_id = \(appID)", "LOWER(username) LIKE \(Self.startsWith(userPrefix)) ESCAPE '\\'",
        ]
        if let status { conditions.append("status = \(status.rawValue)") }
        let counted = try await first(
            "SELECT COUNT(*) AS count FROM devices WHERE \(SQL.joined(conditions, separator: " AND "))"
        ) { row throws(StorageError) -> Int in try row("count") }
        return counted ?? 0
    }

    /// Every registration of a user, in every app.
    public func devices(username: String) async throws(StorageError) -> [DeviceRecord] {
        try await all(
            "SELECT * FROM devices WHERE username = \(username) ORDER BY registered_at, registration_id"
        )
    }

    /// Inserts the registration, or replaces the one with the same app, user and device.
    public func saveDevice(_ device: DeviceRecord) async throws(StorageError) {
        try await writing(forgetting: [.every(.device)]) { () throws(StorageError) in
            try await queries.write(locking: []) { connection in
                try await connection.execute(
                    """
                    DELETE FROM devices WHERE app_id = \(device.appID) AND username = \(device.username)
                        AND device_id = \(device.deviceID) AND registration_id <> \(device.registrationID)
                    """
                )
                try await connection.execute(
                    try .insert(
                        into: "devices",
                        device,
                        upsertingOn: ["registration_id"],
                        keeping: ["app_id", "username", "device_id", "registered_at"]
                    )
                )
            }
        }
    }

    /// Records that the registration reached the server at `date`, and counts it among
    /// the devices active in that hour and day the first time it does in each
    /// (``ActivityKind/activeDevicesInHour``): each update takes the row's lock, so two
    /// contacts at once count once.
    public func touchDevice(registrationID: String, at date: Date) async throws(StorageError) {
        try await writing(forgetting: [.every(.device)]) { () throws(StorageError) in
            try await queries.write(locking: []) { connection in
                let firsts: [(before: Date, counts: [ActivityKind: Int])] = [
                    (ActivityBucket.day.start(of: date), [.activeDevicesInDay: 1, .activeDevicesInHour: 1]),
                    (ActivityBucket.hour.start(of: date), [.activeDevicesInHour: 1]),
                ]
                for first in firsts {
                    let touched = try await connection.rows(
                        """
                        UPDATE devices SET last_contact_at = \(date) WHERE registration_id = \(registrationID)
                            AND (last_contact_at IS NULL OR last_contact_at < \(first.before)) RETURNING app_id
                        """
                    )
                    guard let row = touched.first else { continue }
                    if let counting = Self.counting(first.counts, appID: try row("app_id"), at: date) {
                        try await connection.execute(counting)
                    }
                    return
                }
                try await connection.execute(
                    "UPDATE devices SET last_contact_at = \(date) WHERE registration_id = \(registrationID)"
                )
            }
        }
    }

    // MARK: Logs

    /// Inserts the entries, then drops the oldest of each device they came from past
    /// `retention`, in one transaction.
    public func insertLogs(_ logs: [LogRecord], retention: LogRetention) async throws(StorageError) {
        try await queries.write(locking: []) { connection in
            for start in stride(from: 0, to: logs.count, by: SQL.rowsPerStatement) {
                let batch = logs[start..<min(start + SQL.rowsPerStatement, logs.count)]
                try await connection.execute(try .insert(into: "logs", rows: batch))
            }
            for (app, user, device) in Set(logs.map { [$0.appID, $0.username, $0.deviceID] }).map({
                ($0[0], $0[1], $0[2])
            }) {
                try await connection.execute(
                    """
                    DELETE FROM logs WHERE app_id = \(app) AND username = \(user) AND device_id = \(device)
                        AND (received_at < \(retention.receivedAfter) OR id <= (
                            SELECT id FROM logs WHERE app_id = \(app) AND username = \(user) AND device_id = \(device)
                            ORDER BY id DESC LIMIT 1 OFFSET \(retention.entriesPerDevice)))
                    """
                )
            }
            for (app, user) in Set(logs.map { [$0.appID, $0.username] }).map({ ($0[0], $0[1]) }) {
                try await connection.execute(
                    """
                    DELETE FROM logs WHERE app_id = \(app) AND username = \(user) AND id <= (
                        SELECT id FROM logs WHERE app_id = \(app) AND username = \(user)
                        ORDER BY id DESC LIMIT 1 OFFSET \(retention.entriesPerUser))
                    """
                )
            }
            for app in Set(logs.map(\.appID)) {
                try await connection.execute(
                    """
                    DELETE FROM logs WHERE app_id = \(app) AND id <= (
                        SELECT id FROM logs WHERE app_id = \(app) ORDER BY id DESC LIMIT 1 OFFSET \(retention.entriesPerApp))
                    """
                )
            }
        }
    }

    /// Which of an app's log entries to read: each condition given narrows them.
    public struct LogFilter: Sendable, Hashable {
        /// Only this user's.
        public var username: String?
        /// Only these levels.
        public var levels: [String]?
        /// Only those made at this time or later.
        public var since: Date?
        /// Only those made before this time.
        public var until: Date?
        /// Only those received before the entry of this ID: the page after the one it ended.
        public var before: Int64?

        public init(
            username: String? = nil,
            levels: [String]? = nil,
            since: Date? = nil,
            until: Date? = nil,
            before: Int64? = nil
        ) {
            self.username = username
            self.levels = levels
            self.since = since
            self.until = until
            self.before = before
        }
    }

    /// The app's newest log entries that pass `filter`, at most `limit`, newest received
    /// first (by ID: a page after another starts at ``LogFilter/before``).
    public func logs(
        appID: String,
        filter: LogFilter = LogFilter(),
        limit: Int
    ) async throws(StorageError)
        -> [LogRecord]
    {
        var statement: SQL = "SELECT * FROM logs WHERE app_id = \(appID)"
        if let username = filter.username { statement = statement + " AND username = \(username)" }
        if let levels = filter.levels {
            guard !levels.isEmpty else { return [] }
            statement = statement + " AND level IN (\(list: levels))"
        }
        if let since = filter.since { statement = statement + " AND time >= \(since)" }
        if let until = filter.until { statement = statement + " AND time < \(until)" }
        if let before = filter.before { statement = statement + " AND id < \(before)" }
        return try await all(statement + " ORDER BY id DESC LIMIT \(limit)")
    }
}

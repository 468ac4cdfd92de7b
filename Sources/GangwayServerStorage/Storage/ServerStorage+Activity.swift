import Foundation

/// What the overview counts, per app and hour, as it happens. The rows these are seen in
/// (sessions, sign-in attempts, registrations replaced) are purged or overwritten; the
/// counts are kept for ``ActivityBucket/keptFor``.
public enum ActivityKind: String, Sendable, Hashable, CaseIterable {
    /// Devices registered: new, or replacing a wiped registration.
    case registrations
    /// Sign-ins that opened a session; a refresh is none.
    case signIns
    /// Sign-ins refused for a wrong name or password.
    case signInFailures
    /// Offline changes ended (a duplicate or a held change is none).
    case changes
    /// Of those, the ones that ended in a conflict.
    case conflicts
    /// Of those, the ones refused for good.
    case refusedChanges
    /// Registrations that reached the server in the hour, each once.
    case activeDevicesInHour
    /// Registrations that reached the server in the UTC day, each once; kept at the
    /// day's first hour.
    case activeDevicesInDay

    /// Where a count of this kind at `date` is added.
    func bucket(of date: Date) -> Date {
        (self == .activeDevicesInDay ? ActivityBucket.day : .hour).start(of: date)
    }
}

/// How long one bucket of the overview's counts is: an hour or a UTC day.
public enum ActivityBucket: Int64, Sendable, Hashable {
    case hour = 3_600_000
    case day = 86_400_000

    /// How long counts are kept: more than a year, so a month compares with the last.
    public static let keptFor: TimeInterval = 400 * 24 * 60 * 60

    public var seconds: Int { Int(rawValue / 1000) }

    /// The first instant of the bucket that holds `date`.
    public func start(of date: Date) -> Date {
        let milliseconds = date.milliseconds
        return Date(milliseconds: milliseconds - ((milliseconds % rawValue) + rawValue) % rawValue)
    }
}

/// One kind's count in one bucket.
public struct ActivityCount: Sendable, Hashable {
    public var kind: ActivityKind
    public var start: Date
    public var count: Int

    public init(kind: ActivityKind, start: Date, count: Int) {
        self.kind = kind
        self.start = start
        self.count = count
    }
}

extension ServerStorage {
    /// Adds `counts` to `appID`'s buckets at `date`.
    public func countActivity(_ counts: [ActivityKind: Int], appID: String, at date: Date) async throws(StorageError) {
        guard let statement = Self.counting(counts, appID: appID, at: date) else { return }
        try await execute(statement)
    }

    /// The statement that adds `counts` (those above 0) to `appID`'s buckets at `date`.
    static func counting(_ counts: [ActivityKind: Int], appID: String, at date: Date) -> SQL? {
        let rows = counts.filter { $0.value > 0 }.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            kind,
            count -> SQL in
            "(\(appID), \(kind.rawValue), \(kind.bucket(of: date)), \(count))"
        }
        guard !rows.isEmpty else { return nil }
        return """
            INSERT INTO activity (app_id, kind, bucket, count) VALUES \(SQL.joined(rows, separator: ", "))
            ON CONFLICT (app_id, kind, bucket) DO UPDATE SET count = activity.count + excluded.count
            """
    }

    /// Deletes the counts older than ``ActivityBucket/keptFor`` at `now`, the overview's
    /// and the destinations' requests; how many rows.
    public func purgeActivity(at now: Date) async throws(StorageError) -> Int {
        let cutoff = now.addingTimeInterval(-ActivityBucket.keptFor)
        return try await count("DELETE FROM activity WHERE bucket < \(cutoff) RETURNING 1")
            + count("DELETE FROM destination_requests WHERE bucket < \(cutoff) RETURNING 1")
    }

    /// The counts of `kinds` in `[start, end)`, summed per `bucket` (and over every app
    /// without `appID`); a bucket with nothing counted is absent.
    public func activity(
        appID: String?,
        kinds: [ActivityKind],
        from start: Date,
        to end: Date,
        per bucket: ActivityBucket
    ) async throws(StorageError) -> [ActivityCount] {
        guard !kinds.isEmpty else { return [] }
        let size = String(bucket.rawValue)
        let app: SQL = appID.map { "AND app_id = \($0)" } ?? ""
        return try await all(
            """
            SELECT kind, (bucket / \(unescaped: size)) * \(unescaped: size) AS start,
                CAST(SUM(count) AS BIGINT) AS total
            FROM activity WHERE kind IN (\(list: kinds.map(\.rawValue))) AND bucket >= \(start) AND bucket < \(end) \(app)
            GROUP BY kind, (bucket / \(unescaped: size))
            """
        ) { row throws(StorageError) in
            let name: String = try row("kind")
            guard let kind = ActivityKind(rawValue: name) else {
                throw StorageError(.corrupt, "an activity count's kind is unknown")
            }
            return ActivityCount(kind: kind, start: try row("start"), count: try row("total"))
        }
    }
}

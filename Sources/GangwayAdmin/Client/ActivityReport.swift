import Foundation
import GangwayClient
import GangwayProtocol

/// What happened over the last day, week or month, counted per hour or per day (UTC).
public struct ActivityReport: Sendable, Hashable, Codable {
    /// The span shown, and how long each bucket is.
    public enum Period: String, Sendable, Hashable, Codable, CaseIterable {
        /// 24 hours, by hour.
        case day
        /// 7 days, by day.
        case week
        /// 30 days, by day.
        case month
    }

    /// One bucket's counts.
    public struct Bucket: Sendable, Hashable, Codable {
        public var start: Date
        public var registrations: Int64
        /// Registrations that reached the server in the bucket, each once.
        public var activeDevices: Int64
        public var signIns: Int64
        public var signInFailures: Int64
        /// Offline changes the server ended; of them, conflicts and refused.
        public var changes: Int64
        public var conflicts: Int64
        public var refusedChanges: Int64

        init(_ wire: Components.Schemas.ActivityBucket) {
            start = wire.start
            registrations = wire.registrations
            activeDevices = wire.activeDevices
            signIns = wire.signIns
            signInFailures = wire.signInFailures
            changes = wire.changes
            conflicts = wire.conflicts
            refusedChanges = wire.refusedChanges
        }
    }

    public var period: Period
    public var bucketSeconds: Int
    /// Oldest first, ending with the present hour or day.
    public var buckets: [Bucket]

    init(_ wire: Components.Schemas.Activity) {
        period = Period(rawValue: wire.period.rawValue) ?? .week
        bucketSeconds = wire.bucketSeconds == ._3600 ? 3600 : 86_400
        buckets = wire.buckets.map(Bucket.init)
    }
}

/// What needs an operator: conflicts and refused changes of the last 7 days, blocked
/// users, locked registrations, and devices out of contact past their app's lock or wipe
/// period.
public struct AttentionReport: Sendable, Hashable, Codable {
    /// A registration out of contact past its app's lock or wipe period.
    public struct OverdueDevice: Sendable, Hashable, Codable {
        public var appID: String
        public var registrationID: String
        public var userID: String
        public var deviceName: String
        public var lastContactAt: Date
        /// `lock` or `wipe`: the period it is past.
        public var past: String
    }

    /// Where the conflicts and refused changes are counted from.
    public var since: Date
    public var conflicts: Int64
    public var refusedChanges: Int64
    /// The first blocked users by name; ``blockedUserCount`` counts them all.
    public var blockedUsers: [String]
    public var blockedUserCount: Int64
    public var lockedDevices: Int64
    /// The longest out of contact first; ``overdueDeviceCount`` counts them all.
    public var overdueDevices: [OverdueDevice]
    public var overdueDeviceCount: Int64

    init(_ wire: Components.Schemas.Attention) {
        since = wire.since
        conflicts = wire.conflicts
        refusedChanges = wire.refusedChanges
        blockedUsers = wire.blockedUsers
        blockedUserCount = wire.blockedUserCount
        lockedDevices = wire.lockedDevices
        overdueDevices = wire.overdueDevices.map {
            OverdueDevice(
                appID: $0.appID,
                registrationID: $0.registrationID,
                userID: $0.userID,
                deviceName: $0.deviceName,
                lastContactAt: $0.lastContactAt,
                past: $0.past.rawValue
            )
        }
        overdueDeviceCount = wire.overdueDeviceCount
    }
}

import Foundation
import GangwayProtocol

/// Where an entity set fills itself from: a path of one of the app's destinations that
/// speaks OData v4 JSON, read whole once and then by its changes (delta links), on a
/// schedule and on demand.
public struct DataSourceRecord: Sendable, Hashable {
    public var appID: String
    public var entitySet: String
    /// The app's destination the set is read through.
    public var destination: String
    /// The entity set's path under the destination's URL, from `/` (`/Checks`), with no
    /// query.
    public var path: String
    /// The property of the backend's entities that is the entity's ID.
    public var keyProperty: String
    /// How often the set is read; `nil` reads it only on demand.
    public var every: Int?
    /// Whether devices' changes to the set go to the backend, which decides them.
    public var delivers: Bool
    public var createdAt: Date
    /// Where the source stands between and during its reads.
    public var state: DataSourceState

    public init(
        appID: String,
        entitySet: String,
        destination: String,
        path: String,
        keyProperty: String,
        every: Int?,
        delivers: Bool = false,
        createdAt: Date,
        state: DataSourceState = .init()
    ) {
        self.appID = appID
        self.entitySet = entitySet
        self.destination = destination
        self.path = path
        self.keyProperty = keyProperty
        self.every = every
        self.delivers = delivers
        self.createdAt = createdAt
        self.state = state
    }
}

/// Where a data source stands: its next read, the read under way, and how the last one
/// went.
public struct DataSourceState: Sendable, Hashable {
    /// When the next read is due; `nil` when none is (a source read on demand only).
    public var nextRunAt: Date?
    /// The next read is a full one, as asked, even with a delta link kept.
    public var fullRequested: Bool
    /// The number of the last read taken (each read takes the next).
    public var run: Int64
    /// A read is under way until then, unless it renews its claim first.
    public var runningUntil: Date?
    /// Whether a delta link is kept: the next read asks for changes only. The link itself
    /// is the backend's and is never shown (it may hold a token).
    public var hasDeltaLink: Bool
    /// The last read that ended, if one has.
    public var last: DataSourceRun?

    public init(
        nextRunAt: Date? = nil,
        fullRequested: Bool = false,
        run: Int64 = 0,
        runningUntil: Date? = nil,
        hasDeltaLink: Bool = false,
        last: DataSourceRun? = nil
    ) {
        self.nextRunAt = nextRunAt
        self.fullRequested = fullRequested
        self.run = run
        self.runningUntil = runningUntil
        self.hasDeltaLink = hasDeltaLink
        self.last = last
    }

    /// Whether a read holds its claim at `date`.
    public func isRunning(at date: Date) -> Bool {
        runningUntil.map { $0 > date } ?? false
    }
}

/// How one read of a data source went.
public struct DataSourceRun: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The whole set, page after page.
        case full
        /// The changes since the last read, by its delta link.
        case delta
    }

    public var kind: Kind
    public var startedAt: Date
    public var finishedAt: Date
    /// The backend's rows read (entities and removals).
    public var rows: Int
    public var tally: PullTally
    /// Why the read stopped before its end; `nil` when it ended.
    public var error: String?
    /// Why a delta read became a full one, when it did.
    public var fellBack: String?

    public init(
        kind: Kind,
        startedAt: Date,
        finishedAt: Date,
        rows: Int,
        tally: PullTally,
        error: String? = nil,
        fellBack: String? = nil
    ) {
        self.kind = kind
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.rows = rows
        self.tally = tally
        self.error = error
        self.fellBack = fellBack
    }
}

/// What a read did to its set.
public struct PullTally: Sendable, Hashable, Codable {
    /// Entities written: new, or changed by the backend.
    public var written: Int
    /// Entities removed because the backend removed them (or, at the end of a full
    /// read, no longer has them).
    public var removed: Int
    /// Entities a device changed since the backend's last version, whose device changes
    /// were kept (``ServerStorage/pull(_:into:of:run:limit:by:at:)``).
    public var kept: Int
    /// Rows refused, with the first ``refusalsKept`` of them.
    public var refusedCount: Int
    public var refused: [IngestRefusal]

    /// The refusals a tally keeps.
    public static let refusalsKept = APILimits.dataSourceRefusals.upperBound

    public init(written: Int = 0, removed: Int = 0, kept: Int = 0, refusedCount: Int = 0, refused: [IngestRefusal] = [])
    {
        self.written = written
        self.removed = removed
        self.kept = kept
        self.refusedCount = refusedCount
        self.refused = refused
    }

    /// Adds `other`'s counts, keeping refusals up to ``refusalsKept``.
    public mutating func add(_ other: PullTally) {
        written += other.written
        removed += other.removed
        kept += other.kept
        refusedCount += other.refusedCount
        refused += other.refused.prefix(max(0, Self.refusalsKept - refused.count))
    }
}

import Foundation

/// One page of an entity set's change log, read as one snapshot: the entities written
/// and removed past a position, in the order of their positions, and where the log
/// stands.
///
/// The log holds each entity once, at the position of its last write: a device that
/// reads it past its cursor gets the state of each entity that changed since, never the
/// steps between.
public struct EntityLogPage: Sendable, Hashable {
    /// One entry: an entity as it is now, or the tombstone of one removed.
    public enum Entry: Sendable, Hashable {
        case written(EntityRecord)
        case removed(id: String, position: Int64, removedAt: Date)

        /// Where the entry stands in the log.
        public var position: Int64 {
            switch self {
            case .written(let entity): entity.position
            case .removed(_, let position, _): position
            }
        }

        /// The entity's ID.
        public var id: String {
            switch self {
            case .written(let entity): entity.id
            case .removed(let id, _, _): id
            }
        }
    }

    /// The entries past the position asked for, up to the limit, in the order of their
    /// positions.
    public var entries: [Entry]
    /// Whether entries past the last of `entries`, up to the position asked to read
    /// through, were left for another page.
    public var hasMore: Bool
    /// The position of the set's last write (0: none yet).
    public var lastPosition: Int64
    /// Removals up to this position are forgotten: a reader whose cursor is before it
    /// may have missed one.
    public var purgedThrough: Int64

    public init(entries: [Entry], hasMore: Bool, lastPosition: Int64, purgedThrough: Int64) {
        self.entries = entries
        self.hasMore = hasMore
        self.lastPosition = lastPosition
        self.purgedThrough = purgedThrough
    }
}

import Foundation

/// What one sync of an entity set changed in the device's kept copy
/// (``AppDataReader/sync(_:in:waitingUpTo:)``): the entities the server wrote and removed
/// since the copy's last sync, not the whole set, so an app keeps its screens and its
/// ``LocalEntityStore`` current at the cost of the change alone.
public struct AppDataSync: Sendable, Hashable {
    /// The entity set synced.
    public var entitySet: String
    /// The entities written since the copy's last sync, ordered by ID: their state now.
    /// When ``replaced``, every entity of the copy.
    public var upserted: [AppEntity]
    /// The IDs of the entities removed since the copy's last sync, ordered.
    public var removedIDs: [String]
    /// Whether the copy was built again whole: the set's first sync on this device for
    /// the user, a copy the server no longer serves a delta to (its cursor is older than
    /// the removals it keeps), or a set that moved between the device's copy and the
    /// user's own. What was kept before is gone: show ``upserted`` alone.
    public var replaced: Bool
    /// When the copy was last brought up to date; `nil` when it never was for this user.
    public var fetchedAt: Date?
    /// Why the server did not answer this time, when it did not: nothing changed.
    public var failure: ServiceError?

    public init(
        entitySet: String,
        upserted: [AppEntity],
        removedIDs: [String],
        replaced: Bool,
        fetchedAt: Date?,
        failure: ServiceError?
    ) {
        self.entitySet = entitySet
        self.upserted = upserted
        self.removedIDs = removedIDs
        self.replaced = replaced
        self.fetchedAt = fetchedAt
        self.failure = failure
    }

    /// Whether the sync reached the server.
    public var isFresh: Bool { failure == nil }

    /// Whether the copy changed.
    public var changed: Bool { replaced || !upserted.isEmpty || !removedIDs.isEmpty }
}

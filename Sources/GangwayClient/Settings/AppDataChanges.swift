package import GangwayProtocol

/// One page of what changed in an entity set since a cursor (`syncAppData`): the
/// entities written since, each in its state now, the IDs of those removed, and the
/// cursor to ask with next.
public struct AppDataChanges: Sendable, Hashable {
    /// The entities written since the cursor, in the order of their last writes.
    public var entities: [AppEntity]
    /// The IDs of the entities removed since the cursor.
    public var removedIDs: [String]
    /// Where this page leaves the copy: the cursor for the next page, or, once ``more``
    /// is false, for the next sync. The server's text: keep it as given.
    public var cursor: String
    /// Whether pages of this sync remain: apply the pages of one sync together, so the
    /// copy is never half of a write.
    public var more: Bool
    /// Whether the page is the user's own part of the set (its schema has a subset):
    /// kept for this user only, never where another user of the device could read it.
    public var isPart: Bool

    public init(entities: [AppEntity], removedIDs: [String], cursor: String, more: Bool, isPart: Bool = false) {
        self.entities = entities
        self.removedIDs = removedIDs
        self.cursor = cursor
        self.more = more
        self.isPart = isPart
    }
}

extension AppDataChanges {
    package init(_ wire: Components.Schemas.EntityChanges) {
        self.init(
            entities: wire.entities.map(AppEntity.init),
            removedIDs: wire.removed.map(\.id),
            cursor: wire.cursor,
            more: wire.more,
            isPart: wire.part ?? false
        )
    }
}

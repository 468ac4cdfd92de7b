import Foundation

/// What ``AppDataReader`` found for one entity set: the entities and how fresh they are.
public struct AppDataReading: Sendable, Hashable {
    /// The entity set read.
    public var entitySet: String
    /// Its entities, ordered by ID: from the server, or the copy kept from the last read
    /// that reached it. Empty when the server has none, or none was ever read.
    public var entities: [AppEntity]
    /// When the server sent these entities; `nil` when it never did for this user.
    public var fetchedAt: Date?
    /// Why the server did not answer this time, when it did not: the entities are then
    /// the kept copy (or none).
    public var failure: ServiceError?

    public init(entitySet: String, entities: [AppEntity], fetchedAt: Date?, failure: ServiceError?) {
        self.entitySet = entitySet
        self.entities = entities
        self.fetchedAt = fetchedAt
        self.failure = failure
    }

    /// Whether the entities came from the server just now.
    public var isFresh: Bool { failure == nil }
}

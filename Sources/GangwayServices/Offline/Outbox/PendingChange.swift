import Foundation
import GangwayProtocol

/// A change waiting in the outbox, as any user of the device sees it: its author's
/// registration and a tag of its entity, with its content sealed to the server.
public struct PendingChange: Sendable, Hashable {
    public var changeID: UUID
    public var registrationID: String
    /// The entity's keyed tag: equal for changes to one entity, naming none.
    public var entityTag: String
    public var sequence: Int64
    /// The signed change sealed to the server (``ChangeSeal``).
    public var sealed: Data
    public var recordedAt: Date
}

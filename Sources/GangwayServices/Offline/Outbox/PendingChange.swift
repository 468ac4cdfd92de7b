import Foundation
import GangwayProtocol

/// A change waiting in the outbox, as any user of the device sees it: who made it and
/// which entity it edits, with its content sealed to the server.
public struct PendingChange: Sendable, Hashable {
    public var changeID: UUID
    public var registrationID: String
    public var author: String
    public var entitySet: String
    public var entityID: String
    public var sequence: Int64
    /// The signed change sealed to the server (``ChangeSeal``).
    public var sealed: Data
    public var recordedAt: Date
}

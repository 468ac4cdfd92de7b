import Foundation
import GangwayClient
import GangwayProtocol

/// A change devices uploaded, as the admin sees it: who made it, whose session carried
/// it, and how the server ended it.
public struct ManagedChange: Sendable, Hashable {
    public var changeID: UUID
    public var entitySet: String
    public var entityID: String
    /// The user who made the change.
    public var author: String
    /// The user whose session uploaded it: the author, or the next user of the device.
    public var carrier: String
    public var registrationID: String
    public var result: ChangeResult
    public var receivedAt: Date

    public init(
        changeID: UUID,
        entitySet: String,
        entityID: String,
        author: String,
        carrier: String,
        registrationID: String,
        result: ChangeResult,
        receivedAt: Date
    ) {
        self.changeID = changeID
        self.entitySet = entitySet
        self.entityID = entityID
        self.author = author
        self.carrier = carrier
        self.registrationID = registrationID
        self.result = result
        self.receivedAt = receivedAt
    }

    init(_ wire: Components.Schemas.RecordedChange) throws(ServiceError) {
        guard let id = UUID(uuidString: wire.changeID) else { throw .invalidResponse(status: 200) }
        changeID = id
        entitySet = wire.entitySet
        entityID = wire.entityID
        author = wire.author
        carrier = wire.carrier
        registrationID = wire.registrationID
        result = try ChangeResult(wire.result, changeID: id)
        receivedAt = wire.receivedAt
    }
}

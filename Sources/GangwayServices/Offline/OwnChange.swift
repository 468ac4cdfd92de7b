import Foundation
import GangwayProtocol

/// One of the signed-in user's own changes, as their store keeps it: readable only by
/// them, while the outbox holds its sealed copy for the server.
///
/// A change is ``State/pending`` until the server answers. Applied (or a duplicate of an
/// applied one) it is dropped, since the server's copy now holds it. A conflict or a
/// rejection stays, with the server's reason and its current entity, until the author
/// discards it or edits the entity again.
public struct OwnChange: Sendable, Hashable, Codable, Identifiable {
    /// Where the change stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Recorded on the device; the server has not answered.
        case pending
        /// Applied, except the fields ``conflicts`` lists: someone else changed them first,
        /// and the server kept their values.
        case conflict
        /// Refused for good; ``rejection`` says why. Later changes of the author's to the
        /// same entity wait until this one is discarded or the entity edited again.
        case rejected
    }

    /// The change's ID, the same in the outbox and on the server.
    public var id: UUID
    public var entitySet: String
    public var entityID: String
    /// The fields set, names to values.
    public var fields: [String: String]
    /// Whether the change creates the entity.
    public var creates: Bool
    /// When the author made it.
    public var madeAt: Date
    /// Its place among the author's changes on this registration (the outbox's sequence
    /// number); `nil` in changes kept by earlier versions, which come first.
    public var sequence: Int64?
    public var state: State
    /// The fields both sides changed, with both values (a ``State/conflict``).
    public var conflicts: [FieldConflict]
    /// Why the server refused it (a ``State/rejected``).
    public var rejection: ChangeRejection?
    /// The entity as the server held it when it answered, when it has one.
    public var serverEntity: EntityState?

    public init(
        id: UUID,
        entitySet: String,
        entityID: String,
        fields: [String: String],
        creates: Bool,
        madeAt: Date,
        sequence: Int64? = nil,
        state: State = .pending,
        conflicts: [FieldConflict] = [],
        rejection: ChangeRejection? = nil,
        serverEntity: EntityState? = nil
    ) {
        self.id = id
        self.entitySet = entitySet
        self.entityID = entityID
        self.fields = fields
        self.creates = creates
        self.madeAt = madeAt
        self.sequence = sequence
        self.state = state
        self.conflicts = conflicts
        self.rejection = rejection
        self.serverEntity = serverEntity
    }
}

import Foundation

/// One edit of one entity, as its author made it on the device: the unit the outbox keeps,
/// the server applies once, and the author signs.
///
/// A change names the fields it sets, not the whole entity, and the version of the entity
/// it was based on, so the server can merge it field by field with what others changed
/// meanwhile (``FieldMerge``, the rule the server applies).
public struct Change: Sendable, Hashable, Codable {
    /// Unique for all time; the server keeps the first result under it.
    public var id: UUID
    /// The device registration of the author (one per app, user and device).
    public var registrationID: String
    /// The user name of the person who made the change.
    public var author: String
    /// One more than the author's previous change on this registration, from 1.
    public var sequence: Int64
    /// The entity set, such as `checks`.
    public var entitySet: String
    /// The entity's ID within its set.
    public var entityID: String
    /// The entity's version the author saw; `nil` creates the entity.
    public var baseVersion: Int64?
    /// The fields set, by name.
    public var fields: [String: String]
    /// When the author made it, to the second (the precision the wire carries).
    public var madeAt: Date

    public init(
        id: UUID = UUID(),
        registrationID: String,
        author: String,
        sequence: Int64,
        entitySet: String,
        entityID: String,
        baseVersion: Int64?,
        fields: [String: String],
        madeAt: Date
    ) {
        self.id = id
        self.registrationID = registrationID
        self.author = author
        self.sequence = sequence
        self.entitySet = entitySet
        self.entityID = entityID
        self.baseVersion = baseVersion
        self.fields = fields
        self.madeAt = Date(timeIntervalSince1970: madeAt.timeIntervalSince1970.rounded(.down))
    }

    /// Whether this change creates its entity.
    public var creates: Bool { baseVersion == nil }
}

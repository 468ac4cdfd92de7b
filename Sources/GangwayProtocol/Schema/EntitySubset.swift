/// Which entities of a set each user receives (a set's ``EntitySchema/subset``): those
/// whose ``field`` holds one of the values the user's ``attribute`` lists, as the admin
/// sets the user's attributes. A user without the attribute receives none.
///
/// The server applies it to every read of the set by a device, to each sync's removals
/// (an entity whose field changes to a value outside the user's leaves their copy), and
/// to each device change: a change to an entity outside its author's subset, or one that
/// would move it out, is refused (`OUTSIDE_SUBSET`).
public struct EntitySubset: Sendable, Hashable, Codable {
    /// The field whose value decides, such as `stand`: a text or integer field of the
    /// schema. Values compare as their text.
    public var field: String
    /// The user attribute that lists the values each user receives, such as `stands`.
    public var attribute: String

    public init(field: String, attribute: String) {
        self.field = field
        self.attribute = attribute
    }

    /// Whether an entity with `fields` is in the subset of a user whose attribute lists
    /// `values`.
    public func contains(_ fields: [String: String], for values: Set<String>) -> Bool {
        guard let value = fields[field], !value.isEmpty else { return false }
        return values.contains(value)
    }
}

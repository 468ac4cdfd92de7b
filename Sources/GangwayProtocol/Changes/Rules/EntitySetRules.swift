/// What devices may do to one entity set, as the admin decides: which fields they may
/// write, and whether they may create entities. A set without rules takes no changes.
public struct EntitySetRules: Sendable, Hashable, Codable {
    /// The fields devices may set.
    public var writableFields: Set<String>
    /// Whether devices may create entities in the set.
    public var allowsCreation: Bool

    public init(writableFields: Set<String>, allowsCreation: Bool = false) {
        self.writableFields = writableFields
        self.allowsCreation = allowsCreation
    }

    /// Checks `change` against the rules and the shared limits.
    /// - Throws: the first ``ChangeRejection`` that applies.
    public func check(_ change: Change) throws(ChangeRejection) {
        try Self.checkShape(change)
        if change.creates, !allowsCreation {
            throw ChangeRejection(.creationNotAllowed, "Devices may not create entities in \(change.entitySet).")
        }
        let refused = change.fields.keys.filter { !writableFields.contains($0) }.sorted()
        if !refused.isEmpty {
            throw ChangeRejection(
                .fieldNotWritable,
                "Devices may not write \(refused.joined(separator: ", ")) in \(change.entitySet).",
                fields: refused
            )
        }
    }

    /// Checks the limits every change keeps, whatever the set's rules.
    public static func checkShape(_ change: Change) throws(ChangeRejection) {
        guard EntityLimits.isIdentifier(change.entitySet), EntityLimits.isIdentifier(change.entityID) else {
            throw ChangeRejection(
                .invalidChange,
                "An entity set or ID is 1 to \(EntityLimits.identifierLength.upperBound) letters, digits, '.', '_' and '-', a letter or digit first."
            )
        }
        guard !change.fields.isEmpty, change.fields.count <= EntityLimits.fieldsPerEntity else {
            throw ChangeRejection(
                .invalidChange,
                "A change sets 1 to \(EntityLimits.fieldsPerEntity) fields."
            )
        }
        guard change.sequence >= 1 else {
            throw ChangeRejection(.invalidChange, "Sequence numbers start at 1.")
        }
        if let base = change.baseVersion, base < 1 {
            throw ChangeRejection(.invalidChange, "A base version is 1 or more.")
        }
        for (name, value) in change.fields {
            guard EntityLimits.isFieldName(name) else {
                throw ChangeRejection(.invalidChange, "Field names are a letter, then letters, digits and '_'.")
            }
            guard EntityLimits.valueLength.contains(value.unicodeScalars.count),
                !TextRules.hasControlCharacters(value)
            else {
                throw ChangeRejection(
                    .invalidChange,
                    "A value is at most \(EntityLimits.valueLength.upperBound) characters, with no control characters."
                )
            }
        }
    }
}

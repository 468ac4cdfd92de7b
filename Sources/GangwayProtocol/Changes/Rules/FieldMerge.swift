import Foundation

/// Merges a change into the entity the server holds, field by field, against the version
/// the change was based on.
///
/// - A field only the author changed since the base version takes the author's value.
/// - A field someone else changed since then, to another value than the author's, keeps
///   the server's value and becomes a ``FieldConflict``: no last write wins over a field
///   someone else changed.
/// - A field already holding the author's value is left as it is, whoever set it.
///
/// The entity's version rises by one when at least one field changed, and each changed
/// field records that version.
public enum FieldMerge {
    /// What a merge did.
    public struct Outcome: Sendable, Hashable {
        /// The entity after the change.
        public var entity: EntityState
        /// The fields the change set, by name.
        public var changedFields: [String]
        /// The fields left at the server's value, by name.
        public var conflicts: [FieldConflict]

        /// Whether the entity changed (and its version rose).
        public var changedEntity: Bool { !changedFields.isEmpty }
    }

    /// Merges `change` into `current` (`nil` when the server has no such entity).
    ///
    /// - Throws: ``ChangeRejection/Code/entityNotFound`` when the change edits an entity
    ///   the server does not have (deleted since, or never created).
    public static func merge(_ change: Change, into current: EntityState?) throws(ChangeRejection) -> Outcome {
        guard let current else {
            guard change.creates else {
                throw ChangeRejection(.entityNotFound, "The entity is not on the server; it may have been deleted.")
            }
            let names = change.fields.keys.sorted()
            let entity = EntityState(
                fields: change.fields,
                version: 1,
                fieldVersions: Dictionary(uniqueKeysWithValues: names.map { ($0, 1) })
            )
            return Outcome(entity: entity, changedFields: names, conflicts: [])
        }
        // Creating an entity that exists already: everything on the server is newer.
        let base = change.baseVersion ?? 0
        var changed: [String] = []
        var conflicts: [FieldConflict] = []
        for name in change.fields.keys.sorted() {
            let value = change.fields[name]!
            let serverValue = current.fields[name]
            if serverValue == value { continue }
            if current.versionOfField(name) > base {
                conflicts.append(FieldConflict(field: name, serverValue: serverValue, deviceValue: value))
            } else {
                changed.append(name)
            }
        }
        var entity = current
        if !changed.isEmpty {
            entity.version = current.version + 1
            for name in changed {
                entity.fields[name] = change.fields[name]
                entity.fieldVersions[name] = entity.version
            }
        }
        return Outcome(entity: entity, changedFields: changed, conflicts: conflicts)
    }
}

extension ChangeResult {
    /// The result of a merge.
    public init(changeID: UUID, merged: FieldMerge.Outcome) {
        self.init(
            changeID: changeID,
            outcome: merged.conflicts.isEmpty ? .applied : .conflict,
            version: merged.entity.version,
            conflicts: merged.conflicts
        )
    }
}

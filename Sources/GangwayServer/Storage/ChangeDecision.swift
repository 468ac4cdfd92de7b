import Foundation
import GangwayOffline

/// What one change does, decided inside its transaction from what the database holds:
/// the entity to write, if any, and the result to record. Both databases decide through
/// this; only their reading and writing differ.
struct ChangeDecision {
    var entity: EntityRecord?
    var result: ChangeResult

    /// - Parameters:
    ///   - previous: The entity as stored, if any.
    ///   - sequenceReused: Whether another change of the registration has this sequence.
    ///   - setIsFull: Whether the set holds as many entities as it may (asked only when
    ///     the entity is new).
    static func make(
        _ application: ChangeApplication,
        previous: EntityRecord?,
        sequenceReused: Bool,
        setIsFull: () throws -> Bool,
        decide: (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) throws -> ChangeDecision {
        let change = application.change
        if sequenceReused {
            return rejected(
                change,
                ChangeRejection(.sequenceReused, "Another change of this author has this sequence.")
            )
        }
        let merged: FieldMerge.Outcome
        do {
            merged = try decide(change, previous?.state)
        } catch {
            return rejected(change, error)
        }
        if previous == nil, try setIsFull() {
            return rejected(change, ChangeRejection(.entitySetFull, "The entity set \(change.entitySet) is full."))
        }
        let result = ChangeResult(changeID: change.id, merged: merged)
        guard merged.changedEntity else { return ChangeDecision(entity: nil, result: result) }
        let entity = EntityRecord(
            appID: application.appID,
            entitySet: change.entitySet,
            id: change.entityID,
            fields: merged.entity.fields,
            version: merged.entity.version,
            updatedAt: application.receivedAt,
            updatedBy: change.author,
            fieldVersions: merged.entity.fieldVersions
        )
        return ChangeDecision(entity: entity, result: result)
    }

    private static func rejected(_ change: Change, _ rejection: ChangeRejection) -> ChangeDecision {
        ChangeDecision(entity: nil, result: ChangeResult(changeID: change.id, rejected: rejection))
    }
}

import Foundation
import GangwayProtocol

/// What one change does, decided inside its transaction from what the database holds:
/// the entity to write, if any, and the result to record. Both databases decide through
/// this; only their reading and writing differ.
struct ChangeDecision {
    var entity: EntityRecord?
    var result: ChangeResult

    /// - Parameters:
    ///   - previous: The entity as stored, if any.
    ///   - sequenceReused: Whether another change of the registration has this sequence.
    ///   - schema: The set's schema, which the entity the merge leaves must fit.
    ///   - limit: The most entities devices may fill the set with.
    ///   - creations: How many entities the set holds, and how many of them the change's
    ///     author created (asked only when the entity is new).
    static func make(
        _ application: ChangeApplication,
        previous: EntityRecord?,
        sequenceReused: Bool,
        schema: EntitySchema?,
        limit: Int,
        creations: () throws -> (inSet: Int, byAuthor: Int),
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
        if let schema, merged.changedEntity {
            do throws(EntitySchemaError) {
                try schema.check(merged.entity.fields, in: change.entitySet)
            } catch {
                return rejected(change, ChangeRejection(error))
            }
        }
        if previous == nil {
            let (inSet, byAuthor) = try creations()
            if inSet >= limit {
                return rejected(change, ChangeRejection(.entitySetFull, "The entity set \(change.entitySet) is full."))
            }
            if byAuthor >= EntityLimits.creationsPerAuthor {
                return rejected(
                    change,
                    ChangeRejection(
                        .creationLimitReached,
                        "The author created \(EntityLimits.creationsPerAuthor) entities in \(change.entitySet) already."
                    )
                )
            }
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

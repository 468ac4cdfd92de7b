import Foundation
import GangwayProtocol

/// One batch of changes being ended, as a value: what the database held when the batch's
/// transaction began, kept current as each change is decided, and what the batch writes.
///
/// ``ServerStorage/applyChanges(_:limit:decide:)`` reads everything a batch may need in a
/// few statements, decides each change here in memory, in order, and writes the result in
/// a few more: the same answers as reading before each change, in far fewer round trips.
struct ChangeBatch {
    struct EntityKey: Hashable {
        var appID: String
        var entitySet: String
        var id: String
    }

    struct SetKey: Hashable {
        var appID: String
        var entitySet: String
    }

    struct SequenceKey: Hashable {
        var registrationID: String
        var sequence: Int64
    }

    /// How many entities a set holds, and how many of them each author created.
    struct Creations {
        var inSet = 0
        var byAuthor: [String: Int] = [:]
    }

    /// A change as recorded: its result under its ID, and its sequence unless reused.
    struct Recorded {
        var application: ChangeApplication
        var result: ChangeResult
        var sequence: Int64?
    }

    /// The first result of each change ID on record, by lowercased ID.
    var results: [String: ChangeResult] = [:]
    /// The sequences each registration used.
    var sequences: Set<SequenceKey> = []
    /// The batch's entities as stored, or as the batch left them.
    var entities: [EntityKey: EntityRecord] = [:]
    /// The batch's entities as stored before it.
    var stored: [EntityKey: EntityRecord] = [:]
    var creations: [SetKey: Creations] = [:]
    /// The schemas of the batch's sets that have one.
    var schemas: [SetKey: EntitySchema] = [:]
    /// Who created the entities the batch creates.
    var creators: [EntityKey: String] = [:]
    /// The entities the batch changed, in the order it first changed them.
    private(set) var changedEntities: [EntityKey] = []
    private var changed: Set<EntityKey> = []
    private(set) var recorded: [Recorded] = []
    /// The sets whose changes go to the company's backend to be decided there.
    var delivering: Set<SetKey> = []
    /// The changes the batch queues for their backend, in order.
    private(set) var queued: [ChangeApplication] = []
    /// The change IDs queued before the batch, and by it.
    var queuedIDs: Set<String> = []

    /// Ends one change: a duplicate of a change on record, a rejection, or a merge.
    mutating func apply(
        _ application: ChangeApplication,
        limit: Int,
        decide: (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) throws -> ChangeResult {
        let change = application.change
        let id = change.id.lowercasedText
        if let first = results[id] { return first.asDuplicate }
        if queuedIDs.contains(id) { return ChangeResult(changeID: change.id, heldBecause: Self.deliveringReason) }
        let sequence = SequenceKey(registrationID: change.registrationID, sequence: change.sequence)
        let reused = sequences.contains(sequence)
        let key = EntityKey(appID: application.appID, entitySet: change.entitySet, id: change.entityID)
        let set = SetKey(appID: application.appID, entitySet: change.entitySet)
        let previous = entities[key]
        let decision = try ChangeDecision.make(
            application,
            previous: previous,
            sequenceReused: reused,
            schema: schemas[set],
            limit: limit,
            creations: {
                let counted = creations[set]
                return (counted?.inSet ?? 0, counted?.byAuthor[change.author] ?? 0)
            },
            decide: decide
        )
        // A change of a delivered set that the server's own rules let through is the
        // backend's to decide: queued once, held on the device until the backend answers.
        if delivering.contains(set), decision.result.outcome != .rejected {
            queuedIDs.insert(id)
            queued.append(application)
            return ChangeResult(changeID: change.id, heldBecause: Self.deliveringReason)
        }
        if let entity = decision.entity {
            if previous == nil {
                creations[set, default: Creations()].inSet += 1
                creations[set, default: Creations()].byAuthor[change.author, default: 0] += 1
                creators[key] = change.author
            }
            if changed.insert(key).inserted { changedEntities.append(key) }
            entities[key] = entity
        }
        results[id] = decision.result
        if !reused { sequences.insert(sequence) }
        recorded.append(
            Recorded(application: application, result: decision.result, sequence: reused ? nil : change.sequence)
        )
        return decision.result
    }
}

extension ChangeBatch {
    /// Why a change of a delivered set is held.
    static let deliveringReason = ChangeRejection(
        .delivering,
        "The company's backend has not decided the change yet; the device sends it again."
    )
}

extension ChangeBatch.SetKey {
    /// The set `entity` is in.
    init(_ entity: EntityRecord) {
        self.init(appID: entity.appID, entitySet: entity.entitySet)
    }
}

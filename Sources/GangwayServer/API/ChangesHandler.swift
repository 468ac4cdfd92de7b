import Foundation
import GangwayProtocol
import GangwayServerStorage
import Logging
import OpenAPIRuntime

/// The devices' sealed changes to the app's data: applied exactly once, in order, and
/// listed for the admin.
struct ChangesHandler: APIHandler {
    let services: APIServices

    /// Ends each change of an upload once. Any signed-in user of a registered device may
    /// carry the changes of any user of that device, sealed to the server: each is opened,
    /// checked against its own author's registration and key, and recorded with its author
    /// apart from the carrier; one that does not open, or breaks the limits, is refused alone.
    func uploadSealedChanges(
        _ input: Operations.UploadSealedChanges.Input
    ) async throws -> Operations.UploadSealedChanges.Output {
        let caller = try await authenticate(appID: input.path.appID, requiresRegistration: true)
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Self.checkCount(body.sealed.count)
        for text in body.sealed {
            guard Validation.isBase64URL(text, length: APILimits.sealedChange) else {
                throw APIError.badRequest(
                    "A sealed change is 88 to 400,000 characters of base64url.",
                    code: .invalidField
                )
            }
        }
        let key = keys.changeSealing
        let sealed = body.sealed.map { Data(base64URLEncoded: $0) }
        // A device seals a run of changes under one key: agreed once here, not per change.
        let sharedKeys = ChangeSeal.sharedKeys(of: sealed.compactMap { $0 }, with: key)
        let items = await ParallelWork.map(sealed) { bytes -> Result<SignedChange, ChangeRejection> in
            guard let bytes, let signed = try? ChangeSeal.open(bytes, with: key, sharedKeys: sharedKeys) else {
                return .failure(ChangeRejection(.sealedChangeUnreadable, "The sealed change does not open."))
            }
            do {
                try Self.checkLimits(signed)
                return .success(signed)
            } catch {
                return .failure(
                    ChangeRejection(.invalidChange, (error as? APIError)?.message ?? "The change breaks the limits.")
                )
            }
        }
        return .ok(.init(body: .json(.init(results: try await endAll(items, caller: caller)))))
    }

    private static func checkCount(_ count: Int) throws(APIError) {
        guard (1...EntityLimits.changesPerUpload).contains(count) else {
            throw APIError.badRequest(
                "An upload carries 1 to \(EntityLimits.changesPerUpload) changes.",
                code: .invalidField
            )
        }
    }

    /// Ends each change in order, all in one transaction; an item that failed before (a
    /// sealed change that did not open) is its own rejection, with no change ID.
    private func endAll(
        _ items: [Result<SignedChange, ChangeRejection>],
        caller: Caller
    ) async throws(APIError) -> [Components.Schemas.ChangeResult] {
        var authors: [String: ChangeAuthor] = [:]
        for case .success(let signed) in items where authors[signed.change.registrationID] == nil {
            authors[signed.change.registrationID] = try await author(of: signed.change.registrationID, caller: caller)
        }
        let deviceID = caller.session.deviceID
        let checked = authors
        let refusals = await ParallelWork.map(items) { item -> ChangeRejection? in
            guard case .success(let signed) = item else { return nil }
            return checked[signed.change.registrationID]?.refusal(of: signed, deviceID: deviceID)
        }
        var early: [Int: ChangeResult] = [:]
        var batch: [ChangeApplication] = []
        var batchIndex: [Int: Int] = [:]
        let receivedAt = now()
        for (index, item) in items.enumerated() {
            guard case .success(let signed) = item else { continue }
            if let refusal = refusals[index] {
                early[index] = ChangeResult(changeID: signed.change.id, rejected: refusal)
                continue
            }
            // A blocked author's, or a locked registration's, change waits on the device:
            // nothing is recorded, so after an unblock it is ended once, as if sent then.
            if let reason = checked[signed.change.registrationID]?.holdReason {
                early[index] = ChangeResult(changeID: signed.change.id, heldBecause: reason)
                continue
            }
            batchIndex[index] = batch.count
            batch.append(
                ChangeApplication(
                    appID: caller.app.id,
                    change: signed.change,
                    carrier: caller.session.username,
                    receivedAt: receivedAt
                )
            )
        }
        let ended = try await apply(batch, authors: authors, app: caller.app)
        var answered: [(Change, ChangeResult)] = []
        for (index, item) in items.enumerated() {
            guard case .success(let signed) = item, let result = early[index] ?? batchIndex[index].map({ ended[$0] })
            else { continue }
            answered.append((signed.change, result))
        }
        let shown = try await EntitiesToShow(answered, api: self, appID: caller.app.id)
        // In a set with a subset, an entity is shown only to an author, and through a
        // carrier, who may both read it.
        let subsets = try await perform { try await storage.entitySchemas(appID: caller.app.id) }
            .compactMapValues(\.subset)
        let carrier =
            subsets.isEmpty
            ? nil : try await perform { try await storage.cachedUser(named: caller.session.username) }
        func visible(_ entity: EntityRecord?, of change: Change) -> EntityRecord? {
            guard let entity, let subset = subsets[change.entitySet] else { return entity }
            let readers = [authors[change.registrationID]?.attributes, carrier?.attributes]
            let all = readers.allSatisfy { subset.contains(entity.fields, for: $0?.values(of: subset.attribute) ?? []) }
            return all ? entity : nil
        }
        var results: [Components.Schemas.ChangeResult] = []
        var outcomes: [ChangeResult.Outcome: Int] = [:]
        // Refused before the database saw them (the storage counts those it ended).
        var refusedUnrecorded = 0
        for (index, item) in items.enumerated() {
            switch item {
            case .failure(let rejection):
                outcomes[.rejected, default: 0] += 1
                refusedUnrecorded += 1
                results.append(Self.wire(unopened: rejection))
            case .success(let signed):
                guard let result = early[index] ?? batchIndex[index].map({ ended[$0] }) else {
                    throw .storage(StorageError(.unavailable, "the changes were not ended"))
                }
                if early[index]?.outcome == .rejected { refusedUnrecorded += 1 }
                outcomes[result.outcome, default: 0] += 1
                let entity = visible(shown.entity(for: result, of: signed.change), of: signed.change)
                results.append(Self.wire(result, entity: entity))
            }
        }
        if refusedUnrecorded > 0 {
            await count([.changes: refusedUnrecorded, .refusedChanges: refusedUnrecorded], appID: caller.app.id)
        }
        for (outcome, count) in outcomes { services.metrics.changes(outcome.rawValue, count: count) }
        try await devices.noteContact(caller.device)
        logger.info(
            "changes uploaded",
            metadata: [
                "app": "\(caller.app.id)", "registration": "\(caller.device?.registrationID ?? "-")",
                "applied": "\(outcomes[.applied] ?? 0)", "conflict": "\(outcomes[.conflict] ?? 0)",
                "duplicate": "\(outcomes[.duplicate] ?? 0)", "rejected": "\(outcomes[.rejected] ?? 0)",
            ]
        )
        return results
    }

    /// What the server knows of the author of a registration's changes.
    private func author(of registrationID: String, caller: Caller) async throws(APIError) -> ChangeAuthor {
        let registration = try await perform {
            try await storage.device(appID: caller.app.id, registrationID: registrationID)
        }
        guard let registration,
            let user = try await perform({ try await storage.user(named: registration.username) })
        else {
            // No registration, or no user: refused for good (`KEY_REVOKED`), never held.
            return ChangeAuthor(registration: nil, blocked: false)
        }
        return ChangeAuthor(registration: registration, blocked: user.blocked, attributes: user.attributes)
    }

    /// Ends the checked changes in one transaction. The change of a wiped registration is
    /// recorded as refused (`KEY_REVOKED`); a blocked author's or locked registration's
    /// never gets here (it is held, see ``ChangeAuthor/holdReason``).
    private func apply(
        _ batch: [ChangeApplication],
        authors: [String: ChangeAuthor],
        app: AppRecord
    ) async throws(APIError) -> [ChangeResult] {
        guard !batch.isEmpty else { return [] }
        let settings = app.settings
        let subsets = try await perform { try await storage.entitySchemas(appID: app.id) }.compactMapValues(\.subset)
        // Devices waiting on this process hear of what was applied at once.
        defer { services.setWatch.written() }
        return try await perform {
            try await storage.applyChanges(batch, limit: EntityLimits.entitiesPerSet - EntityLimits.keptForAdmin) {
                change,
                current throws(ChangeRejection) in
                let author = authors[change.registrationID]
                guard author?.registration?.status == .active, author?.blocked == false else {
                    throw ChangeRejection(.keyRevoked, "The author's registration was wiped.")
                }
                guard let rules = settings.rules(for: change.entitySet) else {
                    throw ChangeRejection(.entitySetNotWritable, "Devices may not change \(change.entitySet).")
                }
                try rules.check(change)
                guard let subset = subsets[change.entitySet] else { return try FieldMerge.merge(change, into: current) }
                let values = author?.attributes.values(of: subset.attribute) ?? []
                // An entity outside the author's part is, to them, one the server does not
                // have: the answer is the same, so a refusal tells nothing of what is there.
                if let current, !subset.contains(current.fields, for: values) {
                    // An edit of it is refused as an edit of no entity (FieldMerge's own
                    // refusal, which an edit of nothing always gets); a creation of its ID
                    // cannot be, since it would write over it.
                    guard change.creates else { return try FieldMerge.merge(change, into: nil) }
                    throw ChangeRejection(
                        .outsideSubset,
                        "An entity of this ID is outside the author's part of \(change.entitySet).",
                        fields: [subset.field]
                    )
                }
                let merged = try FieldMerge.merge(change, into: current)
                guard subset.contains(merged.entity.fields, for: values) else {
                    throw ChangeRejection(
                        .outsideSubset,
                        "The change would put the entity outside the author's part of \(change.entitySet) (their \(subset.attribute)).",
                        fields: [subset.field]
                    )
                }
                return merged
            }
        }
    }

    /// The entity as the server holds it, for an author whose change conflicted or was
    /// refused: what they edit again from. Read after the upload's changes, in one
    /// statement per entity set: only the entities shown, whatever the set's size.
    private struct EntitiesToShow {
        private var sets: [String: [String: EntityRecord]] = [:]

        /// Reads the entities of the `changes` whose `results` show one.
        init(
            _ changes: [(Change, ChangeResult)],
            api: ChangesHandler,
            appID: String
        ) async throws(APIError) {
            var wanted: [String: Set<String>] = [:]
            for (change, result) in changes where Self.shows(result) {
                guard (try? Validation.identifier(change.entitySet, "entitySet")) != nil else { continue }
                wanted[change.entitySet, default: []].insert(change.entityID)
            }
            for (entitySet, ids) in wanted {
                let entities = try await api.perform {
                    try await api.storage.entities(appID: appID, entitySet: entitySet, ids: ids)
                }
                sets[entitySet] = Dictionary(entities.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            }
        }

        /// Whether an author is shown the entity with `result`: a conflict or a refusal.
        private static func shows(_ result: ChangeResult) -> Bool {
            let original = result.original ?? result.outcome
            return original == .conflict || original == .rejected
        }

        func entity(for result: ChangeResult, of change: Change) -> EntityRecord? {
            guard Self.shows(result) else { return nil }
            return sets[change.entitySet]?[change.entityID]
        }
    }

    /// The limits the document states for a change (its text, counts and numbers): what
    /// breaks them is that change's rejection.
    static func checkLimits(_ signed: SignedChange) throws(APIError) {
        let change = signed.change
        try Validation.text(change.registrationID, "registrationID", APILimits.identifier)
        try Validation.text(change.author, "author", APILimits.identifier)
        try Validation.identifier(change.entitySet, "entitySet")
        try Validation.identifier(change.entityID, "entityID")
        guard change.sequence >= 1, (change.baseVersion ?? 1) >= 1,
            (1...EntityLimits.fieldsPerEntity).contains(change.fields.count),
            change.fields.values.allSatisfy({ $0.unicodeScalars.count <= EntityLimits.valueLength.upperBound })
        else {
            throw APIError.badRequest(
                "A change has a sequence and base version from 1, and 1 to \(EntityLimits.fieldsPerEntity) "
                    + "fields of at most \(EntityLimits.valueLength.upperBound) characters.",
                code: .invalidField
            )
        }
    }

    // MARK: Admin

    func listChanges(_ input: Operations.ListChanges.Input) async throws -> Operations.ListChanges.Output {
        let app = try await app(input.path.appID)
        let limit = try Validation.listLimit(input.query.limit)
        let outcome = input.query.outcome.flatMap { ChangeResult.Outcome(rawValue: $0.rawValue) }
        let changes = try await perform { try await storage.changes(appID: app.id, outcome: outcome, limit: limit) }
        return .ok(
            .init(
                body: .json(
                    changes.map {
                        .init(
                            changeID: $0.result.changeID.lowercasedText,
                            entitySet: $0.entitySet,
                            entityID: $0.entityID,
                            author: $0.author,
                            carrier: $0.carrier,
                            registrationID: $0.registrationID,
                            result: Self.wire($0.result, entity: nil),
                            receivedAt: $0.receivedAt
                        )
                    }
                )
            )
        )
    }

    /// The result of a sealed change that never became a change.
    static func wire(unopened rejection: ChangeRejection) -> Components.Schemas.ChangeResult {
        .init(
            changeID: nil,
            outcome: .rejected,
            conflicts: [],
            rejection: wire(rejection)
        )
    }

    static func wire(_ result: ChangeResult, entity: EntityRecord?) -> Components.Schemas.ChangeResult {
        .init(
            changeID: result.changeID.lowercasedText,
            outcome: .init(rawValue: result.outcome.rawValue)!,
            original: result.original.flatMap { .init(rawValue: $0.rawValue) },
            version: result.version,
            conflicts: result.conflicts.map {
                .init(field: $0.field, serverValue: $0.serverValue, deviceValue: $0.deviceValue)
            },
            rejection: result.rejection.map(wire),
            entity: entity.map { DataHandler.wire($0) }
        )
    }

    /// A rejection as the device reads it: its fields named when it names any.
    static func wire(_ rejection: ChangeRejection) -> Components.Schemas.ChangeResult.RejectionPayload {
        .init(
            code: rejection.code.rawValue,
            message: rejection.message,
            fields: rejection.fields.isEmpty ? nil : rejection.fields
        )
    }
}

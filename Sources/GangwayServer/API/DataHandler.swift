import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The app's shared data: read by devices, written by the admin.
struct DataHandler: APIHandler {
    let services: APIServices

    /// At most this many entities in one entity set.
    static let entitySetLimit = EntityLimits.entitiesPerSet

    // MARK: Devices read

    func getAppData(_ input: Operations.GetAppData.Input) async throws -> Operations.GetAppData.Output {
        .ok(.init(body: .json(try await appData(appID: input.path.appID, entitySet: input.path.entitySet))))
    }

    /// An entity set as a signed-in device reads it; ``DeviceReadRoute`` answers it too.
    func appData(appID: String, entitySet: String) async throws -> Components.Schemas.EntityList {
        let caller = try await authenticate(appID: appID, requiresRegistration: true)
        let entitySet = try Self.checkedEntitySet(entitySet)
        var entities = try await wholeSet(appID: caller.app.id, entitySet: entitySet)
        if let (subset, values) = try await part(of: entitySet, for: caller) {
            entities = entities.filter { subset.contains($0.fields, for: values) }
        }
        try await devices.noteContact(caller.device)
        return Self.wire(entities, of: entitySet)
    }

    /// The part of `entitySet` the caller receives, when the set has a subset: the subset,
    /// and the values of its attribute the caller's user has (none for a user without it).
    private func part(
        of entitySet: String,
        for caller: Caller
    ) async throws(APIError) -> (EntitySubset, Set<String>)? {
        let schemas = try await perform { try await storage.entitySchemas(appID: caller.app.id) }
        guard let subset = schemas[entitySet]?.subset else { return nil }
        let user = try await perform { try await storage.cachedUser(named: caller.session.username) }
        return (subset, user?.attributes.values(of: subset.attribute) ?? [])
    }

    /// Every entity of a set that may be read whole; a larger one is refused, naming the
    /// read that serves it.
    private func wholeSet(appID: String, entitySet: String) async throws(APIError) -> [EntityRecord] {
        do {
            return try await perform { try await storage.entities(appID: appID, entitySet: entitySet) }
        } catch {
            guard error.code == .limitReached else { throw error }
        }
        throw APIError(
            .conflict,
            .entitySetTooLarge,
            "The set \(entitySet) holds more than \(EntityLimits.entitiesReadWhole) entities: sync it a page at a time (GET /apps/{appID}/data/{entitySet}/changes)."
        )
    }

    /// A page of an entity set's change log past the device's cursor (``SyncCursor``).
    func syncAppData(_ input: Operations.SyncAppData.Input) async throws -> Operations.SyncAppData.Output {
        let answer = try await changes(
            appID: input.path.appID,
            entitySet: input.path.entitySet,
            cursor: input.query.cursor,
            limit: input.query.limit,
            wait: input.query.wait
        )
        return .ok(.init(body: .json(answer.wire)))
    }

    /// One page of a sync (``syncAppData(_:)``), before it is written as JSON: the
    /// generated operation and ``DeviceReadRoute`` (which writes it by hand) both answer
    /// it.
    func changes(
        appID: String,
        entitySet: String,
        cursor cursorText: String?,
        limit: Int?,
        wait: Int?
    ) async throws -> SyncAnswer {
        let caller = try await authenticate(appID: appID, requiresRegistration: true)
        let entitySet = try Self.checkedEntitySet(entitySet)
        let limit = limit ?? APIDefaults.syncPage
        guard APILimits.syncPage.contains(limit) else {
            throw APIError.badRequest(
                "A page holds \(APILimits.syncPage.lowerBound) to \(APILimits.syncPage.upperBound) entries.",
                code: .invalidField
            )
        }
        var cursor = SyncCursor.start
        if let text = cursorText {
            guard APILimits.syncCursor.contains(text.unicodeScalars.count) else {
                throw APIError.badRequest(
                    "A cursor is \(APILimits.syncCursor.lowerBound) to \(APILimits.syncCursor.upperBound) characters.",
                    code: .invalidField
                )
            }
            // A cursor this server cannot read (another server's, or one it never gave) is
            // one it cannot continue from: the device's remedy is the same as for an old one.
            guard let read = SyncCursor(text: text) else {
                throw APIError(
                    .gone,
                    .cursorExpired,
                    "This server cannot continue from that cursor: read the set again from the start, without a cursor."
                )
            }
            cursor = read
        }
        let part = try await part(of: entitySet, for: caller)
        let view = part.map { SyncCursor.view(of: $0.0, values: $0.1) }
        if let refusal = cursor.refusal(reading: view) { throw refusal }
        cursor.view = view
        if let wait, !APILimits.syncWait.contains(wait) {
            throw APIError.badRequest(
                "A sync waits \(APILimits.syncWait.lowerBound) to \(APILimits.syncWait.upperBound) seconds.",
                code: .invalidField
            )
        }
        let appID = caller.app.id
        let asked = SetWatch.Read(
            appID: appID,
            entitySet: entitySet,
            after: cursor.position,
            through: cursor.checkpoint,
            includingRemovals: !cursor.fromStart,
            subset: part?.1,
            limit: limit
        )
        // Shared with the devices asking the same at the same moment (a write's wake).
        let read = { [storage, services] () async throws(APIError) -> EntityLogPage in
            try await perform {
                try await services.setWatch.reads.value(of: asked) {
                    try await storage.entityLog(
                        appID: asked.appID,
                        entitySet: asked.entitySet,
                        after: asked.after,
                        through: asked.through,
                        includingRemovals: asked.includingRemovals,
                        subset: asked.subset,
                        limit: asked.limit
                    )
                }
            }
        }
        let keptDays = caller.app.settings.removalsKeptDays
        var page = try await read()
        if let refusal = cursor.refusal(of: page, removalsKeptDays: keptDays) {
            throw refusal
        }
        try await devices.noteContact(caller.device)
        var (next, more) = cursor.next(after: page)
        var waited = false
        defer { services.metrics.syncPage(waited: waited) }
        // A current copy asked to wait: answered at the next change to the set that it
        // sees (a change outside a part wakes it, finds nothing, and it waits on), or
        // empty at the end. A first read (no cursor) is answered at once, empty or not.
        if let wait, cursorText != nil {
            let deadline = ContinuousClock.now + .seconds(wait)
            while page.entries.isEmpty, !more {
                // Counted as waited whether a change or the deadline ends the wait.
                waited = true
                guard
                    await services.setWatch.wait(
                        for: .init(appID: appID, entitySet: entitySet),
                        past: page.lastPosition,
                        until: deadline
                    )
                else { break }
                page = try await read()
                if let refusal = cursor.refusal(of: page, removalsKeptDays: keptDays) {
                    throw refusal
                }
                (next, more) = cursor.next(after: page)
            }
        }
        return SyncAnswer(
            entitySet: entitySet,
            entries: page.entries,
            cursor: next.text,
            more: more,
            isPart: part != nil
        )
    }

    // MARK: Admin

    func listAppData(_ input: Operations.ListAppData.Input) async throws -> Operations.ListAppData.Output {
        let app = try await app(input.path.appID)
        let entitySet = try Self.checkedEntitySet(input.path.entitySet)
        if let after = input.query.after { try Validation.identifier(after, "after") }
        let limit = input.query.limit ?? APIDefaults.listLimit
        guard APILimits.listLimit.contains(limit) else {
            throw APIError.badRequest(
                "A page lists \(APILimits.listLimit.lowerBound) to \(APILimits.listLimit.upperBound) entities.",
                code: .invalidField
            )
        }
        let (entities, more) = try await perform {
            try await storage.entities(appID: app.id, entitySet: entitySet, after: input.query.after, limit: limit)
        }
        var list = Self.wire(entities, of: entitySet)
        list.more = more
        return .ok(.init(body: .json(list)))
    }

    func putEntity(_ input: Operations.PutEntity.Input) async throws -> Operations.PutEntity.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let app = try await app(input.path.appID)
        let entitySet = try Self.checkedEntitySet(input.path.entitySet)
        try Validation.identifier(input.path.entityID, "entityID")
        let fields = body.fields.additionalProperties
        try Validation.entityFields(fields)
        let entity = EntityRecord(
            appID: app.id,
            entitySet: entitySet,
            id: input.path.entityID,
            fields: fields,
            updatedAt: now(),
            updatedBy: "admin"
        )
        let result: (EntityRecord, created: Bool)
        do {
            result = try await perform { try await storage.putEntity(entity, limit: Self.entitySetLimit) }
        } catch {
            guard error.code == .limitReached else { throw error }
            throw APIError(
                .conflict,
                .entitySetFull,
                "The entity set \(entitySet) holds \(Self.entitySetLimit) entities already."
            )
        }
        services.setWatch.written()
        let saved: EntityRecord = result.0
        let created: Bool = result.created
        let change = created ? "created" : "changed"
        logger.info(
            "entity \(change)",
            metadata: ["app": "\(app.id)", "entitySet": "\(entitySet)", "version": "\(saved.version)"]
        )
        let answer = Self.wire(saved)
        if created { return .created(.init(body: .json(answer))) }
        return .ok(.init(body: .json(answer)))
    }

    func deleteEntity(_ input: Operations.DeleteEntity.Input) async throws -> Operations.DeleteEntity.Output {
        let app = try await app(input.path.appID)
        let entitySet = try Self.checkedEntitySet(input.path.entitySet)
        let entityID = input.path.entityID
        let removed = try await perform {
            try await storage.deleteEntity(appID: app.id, entitySet: entitySet, id: entityID, at: now())
        }
        guard removed else {
            throw APIError.notFound(.entityNotFound, "There is no entity with this ID in the set.")
        }
        services.setWatch.written()
        logger.info("entity removed", metadata: ["app": "\(app.id)", "entitySet": "\(entitySet)"])
        return .noContent(.init())
    }

    private static func checkedEntitySet(_ name: String) throws(APIError) -> String {
        try Validation.identifier(name, "entitySet")
        return name
    }

    static func wire(_ entities: [EntityRecord], of entitySet: String) -> Components.Schemas.EntityList {
        var list: [Components.Schemas.Entity] = []
        for entity in entities { list.append(wire(entity)) }
        return Components.Schemas.EntityList(entitySet: entitySet, entities: list)
    }

    static func wire(_ entity: EntityRecord) -> Components.Schemas.Entity {
        .init(
            id: entity.id,
            fields: .init(additionalProperties: entity.fields),
            version: entity.version,
            updatedAt: entity.updatedAt,
            updatedBy: entity.updatedBy,
            position: entity.position > 0 ? entity.position : nil
        )
    }
}

extension Validation {
    /// An entity's fields, as a put or an ingest gives them: at most
    /// ``EntityLimits/fieldsPerEntity``, each name a field name, each value text of
    /// ``EntityLimits/valueLength``.
    static func entityFields(_ fields: [String: String]) throws(APIError) {
        guard fields.count <= EntityLimits.fieldsPerEntity else {
            throw .badRequest("An entity has at most \(EntityLimits.fieldsPerEntity) fields.", code: .invalidField)
        }
        for (name, value) in fields {
            try fieldName(name)
            try text(value, "the value of \(name)", EntityLimits.valueLength)
        }
    }

    /// A field name (``EntityLimits/isFieldName(_:)``): a letter, then letters, digits
    /// and `_`; 1 to 64 characters.
    static func fieldName(_ name: String) throws(APIError) {
        try length(name, "a field name", EntityLimits.fieldNameLength)
        guard EntityLimits.isFieldName(name) else {
            throw .badRequest(
                "Field names are a letter, then letters, digits and '_'.",
                code: .invalidField
            )
        }
    }
}

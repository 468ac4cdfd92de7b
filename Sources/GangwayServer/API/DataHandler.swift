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
    /// At most this many fields in one entity, as the document says.
    static let entityFieldLimit = EntityLimits.fieldsPerEntity

    // MARK: Devices read

    func getAppData(_ input: Operations.GetAppData.Input) async throws -> Operations.GetAppData.Output {
        .ok(.init(body: .json(try await appData(appID: input.path.appID, entitySet: input.path.entitySet))))
    }

    /// An entity set as a signed-in device reads it; ``DeviceReadRoute`` answers it too.
    func appData(appID: String, entitySet: String) async throws -> Components.Schemas.EntityList {
        let caller = try await authenticate(appID: appID, requiresRegistration: true)
        let entitySet = try Self.checkedEntitySet(entitySet)
        let entities = try await perform { try await storage.entities(appID: caller.app.id, entitySet: entitySet) }
        try await devices.noteContact(caller.device)
        return Self.wire(entities, of: entitySet)
    }

    // MARK: Admin

    func listAppData(_ input: Operations.ListAppData.Input) async throws -> Operations.ListAppData.Output {
        let app = try await app(input.path.appID)
        let entitySet = try Self.checkedEntitySet(input.path.entitySet)
        let entities = try await perform { try await storage.entities(appID: app.id, entitySet: entitySet) }
        return .ok(.init(body: .json(Self.wire(entities, of: entitySet))))
    }

    func putEntity(_ input: Operations.PutEntity.Input) async throws -> Operations.PutEntity.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let app = try await app(input.path.appID)
        let entitySet = try Self.checkedEntitySet(input.path.entitySet)
        try Validation.identifier(input.path.entityID, "entityID")
        let fields = body.fields.additionalProperties
        guard fields.count <= Self.entityFieldLimit else {
            throw APIError.badRequest("An entity has at most \(Self.entityFieldLimit) fields.", code: .invalidField)
        }
        for (name, value) in fields {
            try Validation.fieldName(name)
            try Validation.text(value, "the value of \(name)", EntityLimits.valueLength)
        }
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
            try await storage.deleteEntity(appID: app.id, entitySet: entitySet, id: entityID)
        }
        guard removed else {
            throw APIError.notFound(.entityNotFound, "There is no entity with this ID in the set.")
        }
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
            updatedBy: entity.updatedBy
        )
    }
}

extension Validation {
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

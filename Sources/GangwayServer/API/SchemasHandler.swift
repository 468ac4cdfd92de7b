import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The schemas of an app's entity sets, as the admin declares them (``EntitySchema``):
/// every write of a set is checked against its schema, and devices learn them at the
/// settings exchange.
struct SchemasHandler: APIHandler {
    let services: APIServices

    func listEntitySchemas(
        _ input: Operations.ListEntitySchemas.Input
    ) async throws -> Operations.ListEntitySchemas.Output {
        let app = try await app(input.path.appID)
        let schemas = try await perform { try await storage.entitySchemas(appID: app.id) }
        return .ok(
            .init(body: .json(.init(entitySets: .init(additionalProperties: schemas.mapValues { .init($0) }))))
        )
    }

    func getEntitySchema(_ input: Operations.GetEntitySchema.Input) async throws -> Operations.GetEntitySchema.Output {
        let app = try await app(input.path.appID)
        try Validation.identifier(input.path.entitySet, "entitySet")
        guard let schema = try await perform({ try await storage.entitySchemas(appID: app.id) })[input.path.entitySet]
        else { throw Self.noSchema(input.path.entitySet) }
        return .ok(.init(body: .json(.init(schema))))
    }

    func putEntitySchema(_ input: Operations.PutEntitySchema.Input) async throws -> Operations.PutEntitySchema.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let app = try await app(input.path.appID)
        let entitySet = input.path.entitySet
        try Validation.identifier(entitySet, "entitySet")
        let schema: EntitySchema
        do {
            schema = try EntitySchema(body)
        } catch {
            throw APIError.badRequest(error.message, code: .invalidField)
        }
        try await change(app: app.id, entitySet: entitySet, to: schema)
        logger.info(
            "entity schema set",
            metadata: ["app": "\(app.id)", "entitySet": "\(entitySet)", "fields": "\(schema.fields.count)"]
        )
        return .ok(.init(body: .json(.init(schema))))
    }

    func deleteEntitySchema(
        _ input: Operations.DeleteEntitySchema.Input
    ) async throws -> Operations.DeleteEntitySchema.Output {
        let app = try await app(input.path.appID)
        let entitySet = input.path.entitySet
        try Validation.identifier(entitySet, "entitySet")
        guard try await perform({ try await storage.entitySchemas(appID: app.id) })[entitySet] != nil else {
            throw Self.noSchema(entitySet)
        }
        try await change(app: app.id, entitySet: entitySet, to: nil)
        logger.info("entity schema removed", metadata: ["app": "\(app.id)", "entitySet": "\(entitySet)"])
        return .noContent(.init())
    }

    /// Gives the set `schema`, or refuses, saying which entities do not fit it.
    private func change(app appID: String, entitySet: String, to schema: EntitySchema?) async throws(APIError) {
        let misfit = try await perform {
            try await storage.setEntitySchema(schema, appID: appID, entitySet: entitySet)
        }
        guard let misfit else { return }
        let count = misfit.count == 1 ? "1 entity" : "\(misfit.count) entities"
        throw APIError(
            .conflict,
            .schemaChangeRefused,
            "\(count) of \(entitySet) would not fit the schema; the first, \(misfit.firstID): \(misfit.reason.message) Change those entities first, or declare the field optional, or of a wider type."
        )
    }

    private static func noSchema(_ entitySet: String) -> APIError {
        .notFound(.schemaNotFound, "The set \(entitySet) has no schema: it takes any fields, as text.")
    }
}

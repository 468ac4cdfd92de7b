import Foundation
import GangwayProtocol
import GangwayServerTesting
import GangwayTesting
import Testing

@testable import GangwayServerStorage

@Suite(
    "A set's schema and its writes take turns: none lands between the check of the entities and the change",
    .tags(.postgres),
    .skipsTags
)
struct EntitySchemaRaceTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func entity(_ id: String, _ status: String) -> EntityRecord {
        EntityRecord(
            appID: "checks",
            entitySet: "checks",
            id: id,
            fields: ["status": status],
            updatedAt: now,
            updatedBy: "admin"
        )
    }

    @Test(
        "a narrowing schema and a write it refuses, raced: exactly one of them succeeds",
        arguments: Backend.available
    )
    func raced(backend: Backend) async throws {
        try await StorageUnderTest.withStorage(on: backend) { storage in
            try await storage.insertApp(AppRecord(id: "checks", name: "Checks", createdAt: Self.now))
            let narrow = try EntitySchema(fields: [EntityField("status", .integer, required: true)])
            var outcomes: [String: Int] = [:]
            for round in 0..<40 {
                #expect(try await storage.setEntitySchema(nil, appID: "checks", entitySet: "checks") == nil)
                _ = try await storage.putEntity(Self.entity("kept", "7"), limit: 1000)
                let id = "late-\(round)"
                async let schemaChange = storage.setEntitySchema(narrow, appID: "checks", entitySet: "checks")
                async let write: Bool = {
                    do {
                        _ = try await storage.putEntity(Self.entity(id, "open"), limit: 1000)
                        return true
                    } catch let error as StorageError where error.code == .notValid {
                        return false
                    }
                }()
                let (misfit, written) = try await (schemaChange, write)
                if written {
                    // The write came first: the schema saw it, and was refused for it.
                    #expect(misfit?.firstID == id, "round \(round): a schema set over an entity it does not fit")
                    outcomes["write first", default: 0] += 1
                } else {
                    #expect(misfit == nil, "round \(round): both refused")
                    outcomes["schema first", default: 0] += 1
                }
                let schemas = try await storage.entitySchemas(appID: "checks")
                for entity in try await storage.entities(appID: "checks", entitySet: "checks") {
                    #expect(throws: Never.self) { try schemas["checks"]?.check(entity.fields, in: "checks") }
                }
                if written {
                    #expect(try await storage.deleteEntity(appID: "checks", entitySet: "checks", id: id, at: Self.now))
                }
            }
            #expect(outcomes.values.reduce(0, +) == 40)
        }
    }
}

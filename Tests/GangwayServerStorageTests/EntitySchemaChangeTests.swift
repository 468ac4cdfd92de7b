import Foundation
import GangwayProtocol
import GangwayServerTesting
import GangwayTesting
import Testing

@testable import GangwayServerStorage

@Suite("Entity schema changes said to need no look at the entities")
struct EntitySchemaChangeTests {
    @Test("whatever two schemas and an entity, a change said to keep every entity keeps that one")
    func inPlaceIsSound() throws {
        var random = SeededRandom(seed: 0x5EED)
        let types = FieldType.known
        let samples: [FieldType: [String]] = [
            .text: ["", "open", "12"], .integer: ["", "12", "-3"], .decimal: ["", "12.5", "7"],
            .boolean: ["", "true"], .dateTime: ["", "2026-12-03T14:05:00Z"],
        ]
        func randomSchema() throws -> EntitySchema {
            let names = ["a", "b", "c", "d"].filter { _ in Bool.random(using: &random) }
            let fields = (names.isEmpty ? ["a"] : names).map {
                EntityField(
                    $0,
                    types.randomElement(using: &random)!,
                    required: Bool.random(using: &random),
                    indexed: Bool.random(using: &random)
                )
            }
            return try EntitySchema(fields: fields)
        }
        var checkedPairs = 0
        for _ in 0..<2_000 {
            let (old, new) = (try randomSchema(), try randomSchema())
            guard new.keepsEveryEntity(of: old) else { continue }
            checkedPairs += 1
            for _ in 0..<20 {
                var values: [String: String] = [:]
                for field in old.fields where Bool.random(using: &random) || field.required {
                    values[field.name] = samples[field.type]!.randomElement(using: &random)!
                }
                guard (try? old.check(values, in: "s")) != nil else { continue }
                #expect(throws: Never.self, "\(old) to \(new) with \(values)") { try new.check(values, in: "s") }
            }
        }
        #expect(checkedPairs > 50, "the generator gave too few in-place pairs to say anything")
    }
}

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

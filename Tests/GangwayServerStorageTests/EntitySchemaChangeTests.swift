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

import Foundation
import GangwayProtocol
import Testing

@Suite("Entity schemas: which texts each type takes, and which changes keep every entity")
struct EntitySchemaTests {
    static func schema(_ fields: EntityField...) throws -> EntitySchema { try EntitySchema(fields: fields) }

    @Test(
        "each type takes its own texts and refuses the rest",
        arguments: [
            (
                FieldType.integer, ["0", "42", "-7", "9223372036854775807", "-9223372036854775808"],
                ["", "+1", "01", "-0", "1.0", "1e3", " 1", "9223372036854775808", "١٢", "0x10"]
            ),
            (
                .decimal, ["0", "12.5", "-0.25", "8200", "12.50", "-0"],
                ["", ".5", "5.", "01.5", "1,5", "1e3", "+1", "1.2.3", "NaN", "-"]
            ),
            (.boolean, ["true", "false"], ["", "TRUE", "yes", "1", "False"]),
            (
                .dateTime, ["2026-12-03T14:05:00Z", "2026-12-03T14:05:00.250Z", "2024-02-29T23:59:59.123456789Z"],
                [
                    "", "2026-12-03", "2026-12-03T14:05:00", "2026-12-03T14:05:00+01:00", "2026-12-03 14:05:00Z",
                    "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-12-03T24:00:00Z", "2026-12-03T14:05:00.Z",
                    "2026-12-03T14:05:00.1234567890Z", "2026-12-03t14:05:00z",
                ]
            ),
            (.text, ["", "anything", "8200 kg"], []),
        ] as [(FieldType, [String], [String])]
    )
    func typedTexts(type: FieldType, accepted: [String], refused: [String]) {
        for value in accepted { #expect(type.accepts(value), "\(type) should take \(value)") }
        for value in refused { #expect(!type.accepts(value), "\(type) should refuse \(value)") }
    }

    @Test("an entity is checked whole: declared fields only, each of its type, every required one not empty")
    func wholeEntity() throws {
        let schema = try Self.schema(
            EntityField("stand", .text, required: true, indexed: true),
            EntityField("pressure", .decimal),
            EntityField("due", .dateTime)
        )
        try schema.check(["stand": "12", "pressure": "7.9"], in: "checks")
        try schema.check(["stand": "12", "pressure": ""], in: "checks")
        let cases: [([String: String], String, String)] = [
            (["pressure": "7.9"], "stand", "stand is required in checks."),
            (["stand": ""], "stand", "stand is required in checks."),
            (["stand": "12", "pressure": "high"], "pressure", "pressure in checks is a decimal number, as 12.5."),
            (["stand": "12", "colour": "red"], "colour", "colour is not a field of checks."),
            // Several misfits: the first by name is the one named, whatever the map's order.
            (["stand": "12", "pressure": "high", "colour": "red"], "colour", "colour is not a field of checks."),
            (
                ["stand": "", "pressure": "high", "due": "soon"], "due",
                "due in checks is a UTC date-time, as 2026-12-03T14:05:00Z."
            ),
        ]
        for (values, field, message) in cases {
            let error = #expect(throws: EntitySchemaError.self) { try schema.check(values, in: "checks") }
            #expect(error?.code == .fieldNotValid)
            #expect(error?.fields == [field])
            #expect(error?.message == message)
            // No value reaches a message.
            for value in values.values where !value.isEmpty && value != "12" {
                #expect(!(error?.message.contains(value) ?? true))
            }
        }
        // Some fields, as a change sets them: the others are not looked at, but a
        // required one set empty is refused.
        try schema.checkValues(["pressure": "8"], in: "checks")
        #expect(throws: EntitySchemaError.self) { try schema.checkValues(["stand": ""], in: "checks") }
    }

    @Test("a schema is refused with a sentence: no fields, too many, a bad name, a name twice, too many indexes")
    func invalidSchemas() {
        let many = (0...EntityLimits.fieldsPerEntity).map { EntityField("f\($0)", .text) }
        let indexed = (0...EntityLimits.indexedFieldsPerSet).map { EntityField("f\($0)", .text, indexed: true) }
        let cases: [[EntityField]] = [
            [], many, [EntityField("1st", .text)], [EntityField("a", .text), EntityField("a", .integer)], indexed,
            [EntityField("a", FieldType(rawValue: "money"))],
        ]
        for fields in cases {
            let error = #expect(throws: EntitySchemaError.self) { try EntitySchema(fields: fields) }
            #expect(error?.code == .invalidSchema)
        }
        #expect(throws: Never.self) {
            try EntitySchema(fields: Array(indexed.dropLast()))
        }
    }

    @Test("a field reads from NAME:TYPE[:required][:indexed], and back")
    func declarations() throws {
        let field = try EntityField(declaration: "due:date-time:indexed:required")
        #expect(field == EntityField("due", .dateTime, required: true, indexed: true))
        #expect(try EntityField(declaration: field.declaration) == field)
        #expect(try EntityField(declaration: "note:text") == EntityField("note", .text))
        for bad in ["note", ":text", "note:money", "note:text:twice", "note:text:indexed:indexed", "1a:text", ""] {
            #expect(throws: EntitySchemaError.self, "\(bad)") { try EntityField(declaration: bad) }
        }
    }

    @Test("a schema reads from JSON as the API document writes it, flags left out being false, and is checked")
    func json() throws {
        let schema = try JSONDecoder().decode(
            EntitySchema.self,
            from: Data(
                #"{"fields": [{"name": "stand", "type": "text", "required": true}, {"name": "n", "type": "integer"}]}"#
                    .utf8
            )
        )
        #expect(schema.fields == [EntityField("stand", .text, required: true), EntityField("n", .integer)])
        #expect(try JSONDecoder().decode(EntitySchema.self, from: JSONEncoder().encode(schema)) == schema)
        #expect(throws: EntitySchemaError.self) {
            try JSONDecoder().decode(EntitySchema.self, from: Data(#"{"fields": []}"#.utf8))
        }
    }

    @Test("which changes need no look at the entities")
    func changesInPlace() throws {
        let old = try Self.schema(EntityField("stand", .text, required: true), EntityField("n", .integer))
        let inPlace = [
            try Self.schema(EntityField("stand", .text, required: true, indexed: true), EntityField("n", .integer)),
            try Self.schema(EntityField("stand", .text), EntityField("n", .integer)),
            try Self.schema(EntityField("stand", .text, required: true), EntityField("n", .decimal)),
            try Self.schema(EntityField("stand", .text, required: true), EntityField("n", .text)),
            try Self.schema(
                EntityField("stand", .text, required: true),
                EntityField("n", .integer),
                EntityField("note", .text)
            ),
        ]
        for schema in inPlace { #expect(schema.keepsEveryEntity(of: old)) }
        let checked = [
            try Self.schema(EntityField("stand", .text, required: true)),
            try Self.schema(EntityField("stand", .integer, required: true), EntityField("n", .integer)),
            try Self.schema(EntityField("stand", .text, required: true), EntityField("n", .integer, required: true)),
            try Self.schema(
                EntityField("stand", .text, required: true),
                EntityField("n", .integer),
                EntityField("note", .text, required: true)
            ),
            try Self.schema(EntityField("stand", .text, required: true), EntityField("n", .boolean)),
        ]
        for schema in checked { #expect(!schema.keepsEveryEntity(of: old)) }
        #expect(!old.keepsEveryEntity(of: nil), "a set without a schema may hold anything")
    }
}

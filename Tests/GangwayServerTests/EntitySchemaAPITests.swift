import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "Entity schemas: the admin declares a set's fields and types, the server checks every write, devices learn them",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct EntitySchemaAPITests {
    static let schema = #"""
        {"fields": [
            {"name": "stand", "type": "text", "required": true, "indexed": true},
            {"name": "status", "type": "text", "required": true},
            {"name": "pressure", "type": "decimal"},
            {"name": "due", "type": "date-time", "indexed": true}
        ]}
        """#

    static func put(_ api: API, _ id: String, _ fields: String) async throws -> ServerReply {
        try await api.admin(.put, "/admin/apps/checks/data/checks/\(id)", json: #"{"fields": \#(fields)}"#)
    }

    static func message(_ reply: ServerReply) -> String { ((try? reply.json)?["message"] as? String) ?? "" }

    @Test("a schema is declared, read, listed, given to devices at the settings exchange, and removed")
    func lifecycle() async throws {
        try await ServerFixture().runSeeded { api in
            let none = try await api.admin(.get, "/admin/apps/checks/schemas/checks")
            #expect(none.status == .notFound && none.code == "SCHEMA_NOT_FOUND")
            let put = try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: Self.schema)
            try api.expectStatus(put, .ok)
            let schema = try put.decode(Components.Schemas.EntitySchema.self)
            #expect(schema.fields.map(\.name) == ["stand", "status", "pressure", "due"])
            #expect(schema.fields.map(\._type) == [.text, .text, .decimal, .dateTime])
            #expect(
                try await api.admin(.get, "/admin/apps/checks/schemas/checks").decode(
                    Components.Schemas.EntitySchema.self
                ) == schema
            )
            let listed = try await api.admin(.get, "/admin/apps/checks/schemas").decode(
                Components.Schemas.EntitySchemas.self
            )
            #expect(Array(listed.entitySets.additionalProperties.keys) == ["checks"])

            let token = try await api.signIn("alice")
            let settings = try await api.send(.get, "/apps/checks/settings", token: token)
                .decode(Components.Schemas.SettingsExchange.self).mobileservices.settingsExchange
            #expect(settings.entitySchemas?.additionalProperties["checks"] == schema)

            try api.expectStatus(try await api.admin(.delete, "/admin/apps/checks/schemas/checks"), .noContent)
            let gone = try await api.admin(.delete, "/admin/apps/checks/schemas/checks")
            #expect(gone.status == .notFound && gone.code == "SCHEMA_NOT_FOUND")
            let after = try await api.send(.get, "/apps/checks/settings", token: token)
                .decode(Components.Schemas.SettingsExchange.self).mobileservices.settingsExchange
            #expect(after.entitySchemas == nil)
            // Untyped again: any field, as text.
            try api.expectStatus(try await Self.put(api, "c1", #"{"colour": "red"}"#), .created)
        }
    }

    @Test("a schema that breaks the rules is refused with a sentence, and nothing changes")
    func invalidSchemas() async throws {
        try await ServerFixture().runSeeded { api in
            let bodies = [
                #"{"fields": []}"#,
                #"{"fields": [{"name": "a", "type": "text"}, {"name": "a", "type": "integer"}]}"#,
                #"{"fields": [{"name": "1a", "type": "text"}]}"#,
                #"{"fields": [{"name": "a", "type": "money"}]}"#,
                #"{"fields": [\#((0...16).map { #"{"name": "f\#($0)", "type": "text", "indexed": true}"# }.joined(separator: ","))]}"#,
            ]
            for body in bodies {
                let reply = try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: body)
                #expect(reply.status == .badRequest, "\(body): \(reply.text)")
                #expect(!Self.message(reply).isEmpty)
            }
            let none = try await api.admin(.get, "/admin/apps/checks/schemas/checks")
            #expect(none.code == "SCHEMA_NOT_FOUND")
            let unknownApp = try await api.admin(.put, "/admin/apps/nope/schemas/checks", json: Self.schema)
            #expect(unknownApp.status == .notFound)
        }
    }

    @Test(
        "the admin's writes of a typed set are checked, naming the field and never the value",
        arguments: Backend.available
    )
    func adminWrites(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: Self.schema), .ok)
            try api.expectStatus(
                try await Self.put(
                    api,
                    "c1",
                    #"{"stand": "12", "status": "open", "pressure": "7.9", "due": "2026-12-03T14:05:00Z"}"#
                ),
                .created
            )
            let refusals: [(String, String)] = [
                (
                    #"{"stand": "12", "status": "open", "pressure": "high-ish"}"#,
                    "pressure in checks is a decimal number, as 12.5."
                ),
                (#"{"stand": "12"}"#, "status is required in checks."),
                (#"{"stand": "12", "status": "open", "colour": "crimson"}"#, "colour is not a field of checks."),
                (
                    #"{"stand": "12", "status": "open", "due": "tomorrow-noon"}"#,
                    "due in checks is a UTC date-time, as 2026-12-03T14:05:00Z."
                ),
            ]
            for (fields, message) in refusals {
                let reply = try await Self.put(api, "c2", fields)
                #expect(reply.status == .badRequest && reply.code == "INVALID_FIELD", "\(reply.text)")
                #expect(Self.message(reply) == message)
                for value in ["high-ish", "crimson", "tomorrow-noon"] { #expect(!reply.text.contains(value)) }
            }
            // Nothing of a refused write was kept.
            let list = try await api.admin(.get, "/admin/apps/checks/data/checks").decode(
                Components.Schemas.EntityList.self
            )
            #expect(list.entities.map(\.id) == ["c1"])
        }
    }

    @Test(
        "a device's change is checked after its merge: a value of the wrong type or an undeclared field is refused, FIELD_NOT_VALID",
        arguments: Backend.available
    )
    func deviceChanges(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json:
                    #"{"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": ["status", "pressure", "note"], "allowsCreation": true}}}}}"#
            ).expect(.ok)
            try api.expectStatus(try await Self.put(api, "c1", #"{"stand": "12", "status": "open"}"#), .created)
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: Self.schema), .ok)
            let alice = try await ChangeUploadTests.author("alice", api: api)
            let results = try await ChangeUploadTests.upload(
                [
                    alice.change(sequence: 1, entity: "c1", ["pressure": "very low"]),
                    alice.change(sequence: 2, entity: "c1", ["note": "left tyre"]),
                    alice.change(sequence: 3, base: nil, entity: "c9", ["status": "open"]),
                    alice.change(sequence: 4, entity: "c1", ["status": ""]),
                    alice.change(sequence: 5, entity: "c1", ["pressure": "7.4", "status": "done"]),
                ],
                by: alice,
                api: api
            )
            #expect(
                results.map { $0.rejection?.code } == [
                    "FIELD_NOT_VALID", "FIELD_NOT_VALID", "FIELD_NOT_VALID", "FIELD_NOT_VALID", nil,
                ]
            )
            #expect(results.map { $0.rejection?.fields ?? [] } == [["pressure"], ["note"], ["stand"], ["status"], []])
            #expect(!(results.first?.rejection?.message.contains("very low") ?? true))
            let entity = try await ChangeUploadTests.fuelCheck(api, id: "c1")
            #expect(entity.fields.additionalProperties == ["stand": "12", "status": "done", "pressure": "7.4"])
        }
    }

    @Test(
        "a change every entity fits applies at once; one that breaks kept entities is refused with how many and why, until they fit",
        arguments: Backend.available
    )
    func schemaChanges(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            // Untyped entities first: a first schema is checked against them.
            for (id, pressure) in [("c1", "7.9"), ("c2", "about 8"), ("c3", "8.1"), ("c4", "low")] {
                try api.expectStatus(
                    try await Self.put(api, id, #"{"stand": "12", "status": "open", "pressure": "\#(pressure)"}"#),
                    .created
                )
            }
            let first = try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: Self.schema)
            #expect(first.status == .conflict && first.code == "SCHEMA_CHANGE_REFUSED", "\(first.text)")
            #expect(
                Self.message(first).hasPrefix(
                    "2 entities of checks would not fit the schema; the first, c2: pressure in checks is a decimal number, as 12.5."
                )
            )
            #expect(!first.text.contains("about 8") && !first.text.contains("low\""))
            #expect(try await api.admin(.get, "/admin/apps/checks/schemas/checks").code == "SCHEMA_NOT_FOUND")

            // As text, they fit; then narrowing to decimal is checked again.
            let asText = Self.schema.replacingOccurrences(
                of: #""pressure", "type": "decimal""#,
                with: #""pressure", "type": "text""#
            )
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: asText), .ok)
            let narrowed = try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: Self.schema)
            #expect(narrowed.code == "SCHEMA_CHANGE_REFUSED")
            for id in ["c2", "c4"] {
                try api.expectStatus(
                    try await Self.put(api, id, #"{"stand": "12", "status": "open", "pressure": "8"}"#),
                    .ok
                )
            }
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: Self.schema), .ok)

            // A new required field: refused while entities lack it, whatever their number.
            let required = Self.schema.replacingOccurrences(
                of: "]}",
                with: #", {"name": "aircraft", "type": "text", "required": true}]}"#
            )
            let refused = try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: required)
            #expect(refused.code == "SCHEMA_CHANGE_REFUSED")
            #expect(
                Self.message(refused).hasPrefix(
                    "4 entities of checks would not fit the schema; the first, c1: aircraft is required in checks."
                )
            )
            // Optional, it applies at once; a removed entity is no concern.
            let optional = Self.schema.replacingOccurrences(
                of: "]}",
                with: #", {"name": "aircraft", "type": "text"}]}"#
            )
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: optional), .ok)
            for id in ["c1", "c2", "c3"] {
                try api.expectStatus(
                    try await Self.put(api, id, #"{"stand": "12", "status": "open", "aircraft": "F-GKXA"}"#),
                    .ok
                )
            }
            try api.expectStatus(try await api.admin(.delete, "/admin/apps/checks/data/checks/c4"), .noContent)
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: required), .ok)
        }
    }
}

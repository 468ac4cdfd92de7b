import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "Per-user subsets: each user's devices receive the entities of their values, and change no other",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct EntitySubsetAPITests {
    typealias Changes = Components.Schemas.EntityChanges

    static let schema = #"""
        {"fields": [{"name": "stand", "type": "text", "required": true, "indexed": true},
            {"name": "status", "type": "text"}],
         "subset": {"field": "stand", "attribute": "stands"}}
        """#

    static func attributes(_ api: API, _ user: String, _ json: String) async throws -> ServerReply {
        try await api.admin(.patch, "/admin/users/\(user)", json: #"{"attributes": \#(json)}"#)
    }

    static func put(_ api: API, _ id: String, stand: String) async throws {
        let reply = try await api.admin(
            .put,
            "/admin/apps/checks/data/checks/\(id)",
            json: #"{"fields": {"stand": "\#(stand)", "status": "open"}}"#
        )
        #expect([.created, .ok].contains(reply.status), "\(reply.text)")
    }

    /// A sync from `cursor` to its end: `+id` written, `-id` removed, and the cursor.
    static func sync(_ api: API, _ token: String, from cursor: String?) async throws -> (seen: [String], cursor: String)
    {
        let pages = try await AppDataSyncTests.sync(api, token: token, from: cursor, limit: 2)
        let seen = pages.flatMap { $0.entities.map { "+" + $0.id } + $0.removed.map { "-" + $0.id } }
        return (seen, try #require(pages.last?.cursor))
    }

    @Test(
        "alice gets stand 12, bob stand 14; a move, a removal and a change of attributes reach each as theirs",
        arguments: Backend.available
    )
    func partsOverHTTP(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: Self.schema), .ok)
            try api.expectStatus(try await Self.attributes(api, "alice", #"{"stands": ["12"]}"#), .ok)
            let bobUser = try await Self.attributes(api, "bob", #"{"stands": ["14"], "teams": ["ramp"]}"#)
            try api.expectStatus(bobUser, .ok)
            #expect(
                try bobUser.decode(Components.Schemas.User.self).attributes?.additionalProperties["stands"] == ["14"]
            )
            for (id, stand) in [("a", "12"), ("b", "14"), ("c", "12"), ("d", "16")] {
                try await Self.put(api, id, stand: stand)
            }

            let alice = try await api.signIn("alice")
            _ = try await api.register(token: alice)
            let bob = try await api.signIn("bob", device: "device-2")
            _ = try await api.register(token: bob, device: "device-2")
            let aliceFirst = try await Self.sync(api, alice, from: nil)
            let bobFirst = try await Self.sync(api, bob, from: nil)
            #expect(aliceFirst.seen == ["+a", "+c"])
            #expect(bobFirst.seen == ["+b"])
            #expect(aliceFirst.cursor.hasPrefix("2."), "a part's cursor names it: \(aliceFirst.cursor)")
            let whole = try await api.send(.get, "/apps/checks/data/checks", token: bob)
                .decode(Components.Schemas.EntityList.self)
            #expect(whole.entities.map(\.id) == ["b"], "the whole read is the part too")

            try await Self.put(api, "a", stand: "14")
            try api.expectStatus(try await api.admin(.delete, "/admin/apps/checks/data/checks/b"), .noContent)
            #expect(try await Self.sync(api, alice, from: aliceFirst.cursor).seen == ["-a"])
            #expect(try await Self.sync(api, bob, from: bobFirst.cursor).seen == ["+a", "-b"])

            // Alice's stands change: her cursor is of another part, so she starts again.
            try api.expectStatus(try await Self.attributes(api, "alice", #"{"stands": ["12", "16"]}"#), .ok)
            let stale = try await api.send(
                .get,
                "/apps/checks/data/checks/changes?cursor=\(aliceFirst.cursor)",
                token: alice
            )
            #expect(stale.status == .gone && stale.code == "CURSOR_EXPIRED", "\(stale.text)")
            #expect(try await Self.sync(api, alice, from: nil).seen == ["+c", "+d"])
            // A cursor of the whole set is not one of a part either.
            let plain = try await api.send(.get, "/apps/checks/data/checks/changes?cursor=1.3", token: alice)
            #expect(plain.code == "CURSOR_EXPIRED")

            // A user without the attribute receives nothing.
            try api.expectStatus(try await Self.attributes(api, "bob", "{}"), .ok)
            #expect(try await Self.sync(api, bob, from: nil).seen == [])
        }
    }

    @Test(
        "a device change outside its author's part, or moving an entity out of it, is refused: OUTSIDE_SUBSET",
        arguments: Backend.available
    )
    func changesOutsideThePart(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json:
                    #"{"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": ["stand", "status"], "allowsCreation": true}}}}}"#
            ).expect(.ok)
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/schemas/checks", json: Self.schema), .ok)
            try api.expectStatus(try await Self.attributes(api, "alice", #"{"stands": ["12", "13"]}"#), .ok)
            for (id, stand) in [("a", "12"), ("b", "14")] { try await Self.put(api, id, stand: stand) }
            let alice = try await ChangeUploadTests.author("alice", api: api)
            let results = try await ChangeUploadTests.upload(
                [
                    alice.change(sequence: 1, entity: "b", ["status": "done"]),
                    alice.change(sequence: 2, entity: "a", ["stand": "14"]),
                    alice.change(sequence: 3, base: nil, entity: "e", ["stand": "14", "status": "open"]),
                    alice.change(sequence: 4, entity: "a", ["stand": "13"]),
                    alice.change(sequence: 5, base: nil, entity: "f", ["stand": "12", "status": "open"]),
                ],
                by: alice,
                api: api
            )
            // An entity outside her part is, to her, one the server does not have.
            #expect(
                results.map { $0.rejection?.code } == [
                    "ENTITY_NOT_FOUND", "OUTSIDE_SUBSET", "OUTSIDE_SUBSET", nil, nil,
                ]
            )
            #expect(results[1].rejection?.fields == ["stand"])
            #expect(results.first?.entity == nil, "an entity outside the author's part is not shown to them")
            let nothing = try await ChangeUploadTests.upload(
                [alice.change(sequence: 6, entity: "no-such", ["status": "done"])],
                by: alice,
                api: api
            )
            #expect(nothing.first?.rejection == results.first?.rejection, "the same answer as for no entity at all")
            #expect(nothing.first?.rejection?.message == results.first?.rejection?.message)
            let taken = try await ChangeUploadTests.upload(
                [alice.change(sequence: 7, base: nil, entity: "b", ["stand": "12", "status": "open"])],
                by: alice,
                api: api
            )
            #expect(taken.first?.rejection?.code == "OUTSIDE_SUBSET", "a creation never writes over another's entity")
            #expect(try await ChangeUploadTests.fuelCheck(api, id: "b").fields.additionalProperties["stand"] == "14")
            #expect(try await ChangeUploadTests.fuelCheck(api, id: "a").fields.additionalProperties["stand"] == "13")
        }
    }

    @Test("a user's attributes are bounded as the document says, and refused with a sentence")
    func attributeBounds() async throws {
        try await ServerFixture().runSeeded { api in
            let many = (0...16).map { #""a\#($0)": ["x"]"# }.joined(separator: ", ")
            for json in [
                #"{"1st": ["x"]}"#, #"{"stands": ["12", "12"]}"#, "{\(many)}", #"{"stands": [""]}"#,
                #"{"stands": ["a\u0001"]}"#,
                #"{"stands": [\#((0...100).map { "\"\($0)\"" }.joined(separator: ","))]}"#,
            ] {
                let reply = try await Self.attributes(api, "alice", json)
                #expect(reply.status == .badRequest, "\(json): \(reply.text)")
            }
            try api.expectStatus(try await Self.attributes(api, "alice", #"{"stands": ["12"], "teams": []}"#), .ok)
            let user = try await api.admin(.get, "/admin/users/alice").decode(Components.Schemas.User.self)
            #expect(user.attributes?.additionalProperties == ["stands": ["12"]], "an attribute with no values goes")
        }
    }
}

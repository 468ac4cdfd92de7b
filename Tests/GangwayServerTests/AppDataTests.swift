import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite("App data: entity sets devices read and the admin writes", .servingTurn, .tags(.postgres), .skipsTags)
struct AppDataTests {
    static let fuel = #"{"fields": {"aircraft": "A320 F-GKXA", "item": "fuel level", "status": "open"}}"#

    @Test(
        "the admin puts entities; a signed-in device reads them in ID order, versions counting changes",
        arguments: Backend.available
    )
    func putAndRead(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let created = try await api.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: Self.fuel)
            #expect(created.status == .created)
            #expect(try created.decode(Components.Schemas.Entity.self).version == 1)
            try api.expectStatus(
                try await api.admin(.put, "/admin/apps/checks/data/checks/A-first", json: #"{"fields": {}}"#),
                .created
            )
            fixture.clock.advance(by: .seconds(30))
            let changed = try await api.admin(
                .put,
                "/admin/apps/checks/data/checks/F-GKXA-fuel",
                json: #"{"fields": {"status": "done", "reading": "8200 kg"}}"#
            )
            #expect(changed.status == .ok)
            let entity = try changed.decode(Components.Schemas.Entity.self)
            #expect(entity.version == 2)
            // All the fields are replaced: the ones left out are gone.
            #expect(entity.fields.additionalProperties == ["status": "done", "reading": "8200 kg"])
            #expect(entity.updatedBy == "admin")

            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let list = try await api.send(.get, "/apps/checks/data/checks", token: token)
                .decode(Components.Schemas.EntityList.self)
            #expect(list.entitySet == "checks")
            #expect(list.entities.map(\.id) == ["A-first", "F-GKXA-fuel"])
            #expect(list.entities.last?.version == 2)
            #expect(
                abs(
                    (list.entities.last?.updatedAt.timeIntervalSince1970 ?? 0)
                        - fixture.clock.now().timeIntervalSince1970
                )
                    < 1
            )
            // A set nobody put anything in is empty, not missing.
            let empty = try await api.send(.get, "/apps/checks/data/parts", token: token)
                .decode(Components.Schemas.EntityList.self)
            #expect(empty.entities.isEmpty)
            // The admin sees the same list.
            let admin = try await api.admin(.get, "/admin/apps/checks/data/checks")
                .decode(Components.Schemas.EntityList.self)
            #expect(admin.entities == list.entities)

            #expect(try await api.admin(.delete, "/admin/apps/checks/data/checks/A-first").status == .noContent)
            let gone = try await api.admin(.delete, "/admin/apps/checks/data/checks/A-first")
            #expect(gone.status == .notFound)
            #expect(gone.code == "ENTITY_NOT_FOUND")
            let after = try await api.send(.get, "/apps/checks/data/checks", token: token)
                .decode(Components.Schemas.EntityList.self)
            #expect(after.entities.map(\.id) == ["F-GKXA-fuel"])
        }
    }

    @Test(
        "devices need a valid session on the app, and a registration neither locked nor wiped",
        arguments: Backend.available
    )
    func deviceAccess(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try api.expectStatus(
                try await api.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: Self.fuel),
                .created
            )
            #expect(try await api.send(.get, "/apps/checks/data/checks").status == .unauthorized)
            #expect(try await api.send(.get, "/apps/checks/data/checks", token: "not-a-token").status == .unauthorized)
            // The admin token is not a session.
            #expect(
                try await api.send(.get, "/apps/checks/data/checks", token: fixture.adminToken).status == .unauthorized
            )
            let token = try await api.signIn("alice")
            #expect(try await api.send(.get, "/apps/nowhere/data/checks", token: token).status == .notFound)
            // A device without a registration gets no data.
            let unregistered = try await api.send(.get, "/apps/checks/data/checks", token: token)
            #expect(unregistered.status == .forbidden)
            #expect(unregistered.code == "DEVICE_NOT_REGISTERED")

            let registration = try await api.register(token: token)
            let badSet = try await api.send(.get, "/apps/checks/data/b%40d", token: token)
            #expect(badSet.status == .badRequest)
            fixture.clock.advance(by: .seconds(1))
            try api.expectStatus(
                try await api.admin(
                    .patch,
                    "/admin/apps/checks/devices/\(registration.registrationID)",
                    json: #"{"status": "wiped"}"#
                ),
                .ok
            )
            let wiped = try await api.send(.get, "/apps/checks/data/checks", token: token)
            #expect(wiped.status == .forbidden)
            #expect(wiped.code == "TRAFFIC_REG_WIPED")
            #expect(!wiped.text.contains("F-GKXA"))

            let bob = try await api.signIn("bob", device: "device-2")
            let bobs = try await api.register(token: bob, device: "device-2")
            #expect(try await api.send(.get, "/apps/checks/data/checks", token: bob).status == .ok)
            fixture.clock.advance(by: .seconds(1))
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(bobs.registrationID)",
                json: #"{"status": "locked"}"#
            ).expect(.ok)
            let locked = try await api.send(.get, "/apps/checks/data/checks", token: bob)
            #expect(locked.status == .forbidden)
            #expect(locked.code == "TRAFFIC_REG_LOCKED")
            #expect(!locked.text.contains("F-GKXA"))

            // A session of another app reads nothing of this one.
            try await api.admin(.post, "/admin/apps", json: #"{"appID": "other", "name": "Other"}"#).expect(.created)
            let other = try await api.send(
                .post,
                "/apps/other/sessions",
                json: #"{"username": "alice", "password": "alice-password", "deviceID": "device-3"}"#
            ).decode(Components.Schemas.Session.self).token
            #expect(try await api.send(.get, "/apps/checks/data/checks", token: other).status == .unauthorized)
        }
    }

    @Test(
        "the device-read path answers the generated route's bytes, and the next change at once",
        arguments: Backend.available
    )
    func deviceReadPath(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try api.expectStatus(
                try await api.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: Self.fuel),
                .created
            )
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let fast = try await api.send(.get, "/apps/checks/data/checks", token: token)
            // A trailing slash is not the device-read path's; the generated route answers.
            let generated = try await api.send(.get, "/apps/checks/data/checks/", token: token)
            try api.expectStatus(generated, .ok)
            #expect(generated.body == fast.body)
            #expect(generated.headers[.contentType] == fast.headers[.contentType])
            #expect(fast.text.contains("updatedAt"))

            // The bytes kept for the set are not answered once the set changed.
            try api.expectStatus(
                try await api.admin(
                    .put,
                    "/admin/apps/checks/data/checks/F-GKXA-fuel",
                    json: #"{"fields": {"status": "done"}}"#
                ),
                .ok
            )
            let changed = try await api.send(.get, "/apps/checks/data/checks", token: token)
                .decode(Components.Schemas.EntityList.self)
            #expect(changed.entities.first?.fields.additionalProperties == ["status": "done"])
            #expect(changed.entities.first?.version == 2)
            // Errors on this path are the gateway's documents, with the request ID.
            let noToken = try await api.send(.get, "/apps/checks/data/checks")
            #expect(noToken.status == .unauthorized)
            #expect(noToken.headers[.init("x-request-id")!] != nil)
            #expect(try await api.send(.delete, "/apps/checks/data/checks", token: token).status == .methodNotAllowed)
        }
    }

    @Test("bad entities are refused with a 400 and change nothing", arguments: Backend.available)
    func badInput(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try api.expectStatus(
                try await api.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: Self.fuel),
                .created
            )
            let tooMany = (0...64).map { #""f\#($0)": "x""# }.joined(separator: ",")
            let refusals: [(path: String, body: String, code: String)] = [
                ("/admin/apps/checks/data/checks/F-GKXA-fuel", #"{"fields": {"1st": "x"}}"#, "INVALID_FIELD"),
                ("/admin/apps/checks/data/checks/F-GKXA-fuel", #"{"fields": {"a b": "x"}}"#, "INVALID_FIELD"),
                ("/admin/apps/checks/data/checks/F-GKXA-fuel", #"{"fields": {"note": "x\u0000y"}}"#, "INVALID_FIELD"),
                (
                    "/admin/apps/checks/data/checks/F-GKXA-fuel",
                    #"{"fields": {"note": "\#(String(repeating: "x", count: 1025))"}}"#, "INVALID_FIELD"
                ),
                ("/admin/apps/checks/data/checks/F-GKXA-fuel", #"{"fields": {\#(tooMany)}}"#, "INVALID_FIELD"),
                ("/admin/apps/checks/data/checks/F-GKXA-fuel", #"{"fields": {"status": 3}}"#, "BAD_REQUEST"),
                ("/admin/apps/checks/data/checks/F-GKXA-fuel", #"{"fields": "done"}"#, "BAD_REQUEST"),
                ("/admin/apps/checks/data/checks/-dash", #"{"fields": {}}"#, "INVALID_FIELD"),
                ("/admin/apps/checks/data/b%40d/F-GKXA-fuel", #"{"fields": {}}"#, "INVALID_FIELD"),
            ]
            for refusal in refusals {
                let reply = try await api.admin(.put, refusal.path, json: refusal.body)
                #expect(reply.status == .badRequest, "\(refusal.body.prefix(60))")
                #expect(reply.code == refusal.code, "\(refusal.body.prefix(60)): \(reply.text)")
            }
            #expect(
                try await api.admin(.put, "/admin/apps/nope/data/checks/x", json: #"{"fields": {}}"#).status
                    == .notFound
            )
            let list = try await api.admin(.get, "/admin/apps/checks/data/checks")
                .decode(Components.Schemas.EntityList.self)
            #expect(list.entities.count == 1)
            #expect(list.entities.first?.version == 1)
            #expect(list.entities.first?.fields.additionalProperties["status"] == "open")
            // Only the admin writes.
            let token = try await api.signIn("alice")
            let asDevice = try await api.send(
                .put,
                "/admin/apps/checks/data/checks/F-GKXA-fuel",
                token: token,
                json: Self.fuel
            )
            #expect(asDevice.status == .unauthorized)
        }
    }

    @Test("a full entity set refuses a new entity and still takes changes", arguments: Backend.available)
    func limit(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { _ in
            let storage = fixture.server.storage
            func entity(_ id: String, _ status: String) -> EntityRecord {
                EntityRecord(
                    appID: "checks",
                    entitySet: "checks",
                    id: id,
                    fields: ["status": status],
                    updatedAt: fixture.clock.now(),
                    updatedBy: "admin"
                )
            }
            #expect(try await storage.putEntity(entity("a", "open"), limit: 2).created)
            #expect(try await storage.putEntity(entity("b", "open"), limit: 2).created)
            await #expect(throws: StorageError(.limitReached, "the entity set is full")) {
                _ = try await storage.putEntity(entity("c", "open"), limit: 2)
            }
            let (changed, created) = try await storage.putEntity(entity("b", "done"), limit: 2)
            #expect(!created)
            #expect(changed.version == 2)
            // Another set of the same app has room of its own.
            var other = entity("c", "open")
            other.entitySet = "parts"
            #expect(try await storage.putEntity(other, limit: 2).created)
            #expect(try await storage.entities(appID: "checks", entitySet: "checks").map(\.id) == ["a", "b"])
            #expect(
                try await storage.deleteEntity(appID: "checks", entitySet: "checks", id: "a", at: fixture.clock.now())
            )
            #expect(
                try await !storage.deleteEntity(appID: "checks", entitySet: "checks", id: "a", at: fixture.clock.now())
            )
        }
    }
}

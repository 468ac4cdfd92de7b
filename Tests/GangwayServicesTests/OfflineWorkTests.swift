import Foundation
import GangwayAdmin
import GangwayFlows
import GangwayProtocol
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Synchronization
import Testing

@Suite("Offline work: edits recorded at once, shown pending, sent by any session, answered to their author alone")
struct OfflineWorkTests {
    static func rules(creation: Bool = false, fields: [String] = ["status", "reading", "note"]) -> String {
        let names = fields.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": ["#
            + names + #"], "allowsCreation": \#(creation)}}}}}"#
    }
    static let fuel = #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "reading": "7.9 bar"}}"#
    static let tyres = #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "item": "tyres"}}"#

    struct Signed {
        let device: ServicesDevice
        let app: ServicesApp
        let work: OfflineWork

        func context() async throws -> FlowContext { try #require(await app.manager.flowContext) }

        /// Reads the checks from the server, as the home screen does, so the kept copy is fresh.
        func refresh() async throws -> [AppEntity] {
            try await AppDataReader(services: device.services).read("checks", in: try await context()).entities
        }
    }

    /// Alice signed in on a device with the fuel and tyre checks, the rules set.
    static func aliceSignedIn(
        _ server: RunningTestServer,
        shared: Bool = false,
        rules: String = rules(),
        carryPrevious: Bool = false
    ) async throws -> Signed {
        try await server.admin(.patch, "/admin/apps/checks", json: rules)
        try await server.admin(
            .patch,
            "/admin/apps/checks",
            json:
                #"{"settings": {"sharedDeviceSettings": {"allowUploadPendingChangesFromPreviousUser": \#(carryPrevious)}}}"#
        )
        try await server.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: fuel)
        try await server.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-tyres", json: tyres)
        let device = try ServicesDevice(server: server, shared: shared)
        let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
        try await app.manager.open()
        let work = OfflineWork(
            services: device.services,
            outbox: try Outbox(directory: device.temporary.url, deviceKeys: device.deviceKeys)
        )
        let signed = Signed(device: device, app: app, work: work)
        _ = try await signed.refresh()
        return signed
    }

    static func entity(_ server: RunningTestServer, _ id: String) async throws -> AppEntity {
        let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
        return try #require(try await admin.entities(app: "checks", entitySet: "checks").entities.first { $0.id == id })
    }

    @Test("an edit is recorded and shown pending at once, then applied once by a sync, as its author's")
    func editThenSync() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            let change = try alice.work.edit(
                "checks",
                entityID: "F-GKXA-fuel",
                fields: ["status": "done", "note": "valve ok"],
                in: context
            )
            #expect(try alice.work.own(in: context) == [change])
            #expect(change.state == .pending && !change.creates)
            let kept = try #require(try AppDataReader(services: alice.device.services).kept("checks", in: context))
            let shown = try alice.work.view(kept.entities, of: "checks", in: context)
            let fuel = try #require(shown.first { $0.id == "F-GKXA-fuel" })
            #expect(fuel.pending && fuel.entity["status"] == "done" && fuel.entity["note"] == "valve ok")
            #expect(fuel.entity["reading"] == "7.9 bar", "fields the change leaves alone show the server's")
            #expect(shown.first { $0.id == "F-GKXA-tyres" }?.pending == false)
            #expect(try alice.work.waiting(in: context) == (own: 1, others: 0))
            #expect(try await Self.entity(server, "F-GKXA-fuel")["status"] == "open", "nothing sent yet")

            let report = try await alice.work.sync(in: context)
            #expect(report.sent.answered == [.applied: 1])
            #expect(report.archived.isEmpty)
            #expect(try alice.work.own(in: context).isEmpty)
            #expect(try alice.work.waiting(in: context) == (own: 0, others: 0))
            let applied = try await Self.entity(server, "F-GKXA-fuel")
            #expect(applied.version == 2 && applied.updatedBy == "alice" && applied["note"] == "valve ok")

            let again = try await alice.work.sync(in: context)
            #expect(again.sent.settled == 0)
            #expect(try await Self.entity(server, "F-GKXA-fuel").version == 2)
            try await alice.app.manager.close()
        }
    }

    @Test("what the rules refuse is refused on the device with the server's code, and nothing is recorded")
    func refusedOnTheDevice() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            #expect {
                try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["aircraft": "B737"], in: context)
            } throws: { ($0 as? ChangeRejection)?.code == .fieldNotWritable }
            #expect {
                try alice.work.edit("checks", entityID: "no-such-check", fields: ["status": "done"], in: context)
            } throws: { ($0 as? ChangeRejection)?.code == .entityNotFound }
            #expect {
                try alice.work.edit("stands", entityID: "12", fields: ["status": "done"], in: context)
            } throws: { ($0 as? ChangeRejection)?.code == .entitySetNotWritable }
            #expect {
                try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["bad name!": "x"], in: context)
            } throws: { ($0 as? ChangeRejection)?.code == .invalidChange }
            #expect {
                try alice.work.edit("checks", entityID: "bad id", fields: ["status": "done"], in: context)
            } throws: { ($0 as? ChangeRejection)?.code == .invalidChange }
            #expect(try alice.work.own(in: context).isEmpty)
            #expect(try alice.work.outbox.readyCount() == 0)
            try await alice.app.manager.close()
        }
    }

    @Test(
        "the set's schema is checked on the device: a wrong type, an undeclared field, a creation short of a required one"
    )
    func schemaOnTheDevice() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.admin(
                .put,
                "/admin/apps/checks/schemas/checks",
                json: #"""
                    {"fields": [{"name": "aircraft", "type": "text"}, {"name": "item", "type": "text"},
                        {"name": "status", "type": "text", "required": true}, {"name": "reading", "type": "text"},
                        {"name": "pressure", "type": "decimal"}]}
                    """#
            )
            let rules = Self.rules(creation: true, fields: ["status", "reading", "note", "pressure"])
            let alice = try await Self.aliceSignedIn(server, rules: rules)
            let context = try await alice.context()
            let refused: [(String, [String: String], String)] = [
                ("F-GKXA-fuel", ["pressure": "seven"], "pressure"),
                ("F-GKXA-fuel", ["note": "valve cap"], "note"),
                ("F-GKXA-fuel", ["status": ""], "status"),
                ("F-GKXA-oil", ["pressure": "7.5"], "status"),
            ]
            for (entity, fields, field) in refused {
                #expect {
                    try alice.work.edit("checks", entityID: entity, fields: fields, in: context)
                } throws: {
                    let rejection = $0 as? ChangeRejection
                    return rejection?.code == .fieldNotValid && rejection?.fields == [field]
                        && !(rejection?.message.contains("seven") ?? true)
                }
            }
            #expect(try alice.work.own(in: context).isEmpty)
            // What fits is recorded, and the server applies it.
            _ = try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["pressure": "7.5"], in: context)
            _ = try alice.work.edit("checks", entityID: "F-GKXA-oil", fields: ["status": "open"], in: context)
            let report = try await alice.work.sync(in: context)
            #expect(report.sent.answered == [.applied: 2])
            #expect(try await Self.entity(server, "F-GKXA-fuel")["pressure"] == "7.5")
            try await alice.app.manager.close()
        }
    }

    @Test("where the set allows it, an entity is created offline, edited again, and created once")
    func creation() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server, rules: Self.rules(creation: true))
            let context = try await alice.context()
            // An ID the server would refuse is refused here, not created and sent.
            #expect {
                try alice.work.edit("checks", entityID: "", fields: ["status": "open"], in: context)
            } throws: { ($0 as? ChangeRejection)?.code == .invalidChange }
            let made = try alice.work.edit("checks", entityID: "F-GKXA-oil", fields: ["status": "open"], in: context)
            let edited = try alice.work.edit("checks", entityID: "F-GKXA-oil", fields: ["status": "done"], in: context)
            #expect(made.creates && !edited.creates)
            let shown = try alice.work.view(try await alice.refresh(), of: "checks", in: context)
            #expect(shown.filter { $0.id == "F-GKXA-oil" }.map(\.entity.fields) == [["status": "done"]])
            let report = try await alice.work.sync(in: context)
            #expect(report.sent.answered == [.applied: 2])
            let oil = try await Self.entity(server, "F-GKXA-oil")
            #expect(oil.version == 2 && oil["status"] == "done" && oil.updatedBy == "alice")
            try await alice.app.manager.close()
        }
    }

    @Test(
        "a field someone else changed first is a conflict: the server's value stays, both are archived for the author"
    )
    func conflict() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            let change = try alice.work.edit(
                "checks",
                entityID: "F-GKXA-fuel",
                fields: ["reading": "8.1 bar", "note": "topped up"],
                in: context
            )
            try await server.admin(
                .put,
                "/admin/apps/checks/data/checks/F-GKXA-fuel",
                json: #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "reading": "7.7 bar"}}"#
            )
            let report = try await alice.work.sync(in: context)
            #expect(report.sent.answered == [.conflict: 1])
            let archived = try #require(report.archived.first)
            #expect(archived.id == change.id && archived.state == .conflict)
            #expect(
                archived.conflicts == [FieldConflict(field: "reading", serverValue: "7.7 bar", deviceValue: "8.1 bar")]
            )
            #expect(archived.serverEntity?.fields["reading"] == "7.7 bar")
            #expect(try alice.work.own(in: context) == [archived])
            let fuel = try await Self.entity(server, "F-GKXA-fuel")
            #expect(fuel["reading"] == "7.7 bar" && fuel["note"] == "topped up")
            let shown = try alice.work.view(try await alice.refresh(), of: "checks", in: context)
            #expect(shown.first { $0.id == "F-GKXA-fuel" }?.needsAttention == true)

            // Editing again answers the conflict: the new change is based on what the server holds.
            try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["reading": "8.1 bar"], in: context)
            #expect(try alice.work.own(in: context).map(\.state) == [.pending])
            #expect(try await alice.work.sync(in: context).sent.answered == [.applied: 1])
            #expect(try await Self.entity(server, "F-GKXA-fuel")["reading"] == "8.1 bar")
            try await alice.app.manager.close()
        }
    }

    @Test(
        "a rejected change holds its author's later changes to that entity; every other change flows; a discard lets them go"
    )
    func rejectionHoldsOnlyItsEntity() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            let note = try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["note": "leak"], in: context)
            let status = try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["status": "done"], in: context)
            let tyres = try alice.work.edit("checks", entityID: "F-GKXA-tyres", fields: ["status": "done"], in: context)
            // The admin stops devices writing notes before the changes arrive.
            try await server.admin(.patch, "/admin/apps/checks", json: Self.rules(fields: ["status", "reading"]))

            let report = try await alice.work.sync(in: context)
            #expect(report.sent.answered == [.rejected: 1, .applied: 1])
            #expect(report.archived.map(\.id) == [note.id])
            #expect(report.archived.first?.rejection?.code == .fieldNotWritable)
            #expect(report.archived.first?.rejection?.fields == ["note"], "the server names the field")
            #expect(try alice.work.own(in: context).map(\.id) == [note.id, status.id])
            #expect(try await Self.entity(server, "F-GKXA-tyres")["status"] == "done", "the queue did not stop")
            #expect(try await Self.entity(server, "F-GKXA-fuel")["status"] == "open", "held behind the rejection")
            #expect(try alice.work.outbox.readyCount() == 0)
            #expect(try alice.work.outbox.count(registrationID: try #require(try alice.registrationID(context))) == 1)
            _ = tyres

            try alice.work.discard(note.id, in: context)
            #expect(try alice.work.own(in: context).map(\.id) == [status.id])
            #expect(try await alice.work.sync(in: context).sent.answered == [.applied: 1])
            #expect(try await Self.entity(server, "F-GKXA-fuel")["status"] == "done")
            #expect(try alice.work.own(in: context).isEmpty)
            #expect(throws: OfflineWorkError.noSuchChange) { try alice.work.discard(note.id, in: context) }
            try await alice.app.manager.close()
        }
    }

    @Test("changes kept by an earlier version in one entry are read, split per entity, and go on being edited")
    func earlierVersionsEntry() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            let fuel = try alice.work.edit(
                "checks",
                entityID: "F-GKXA-fuel",
                fields: ["reading": "8.0 bar"],
                in: context
            )
            let tyres = try alice.work.edit("checks", entityID: "F-GKXA-tyres", fields: ["status": "done"], in: context)
            // As an earlier version kept them: one array under one key.
            let keys = try context.credentials.keys().filter { $0.hasPrefix("gangway.offline.own/") }
            #expect(keys == ["gangway.offline.own/checks/F-GKXA-fuel", "gangway.offline.own/checks/F-GKXA-tyres"])
            for key in keys { _ = try context.credentials.removeValue(forKey: key) }
            try context.credentials.put(try JSONEncoder().encode([fuel, tyres]), forKey: "gangway.offline.own")

            #expect(try alice.work.own(in: context) == [fuel, tyres])
            #expect(try context.credentials.data(forKey: "gangway.offline.own") == nil)
            let again = try alice.work.edit(
                "checks",
                entityID: "F-GKXA-fuel",
                fields: ["reading": "8.2 bar"],
                in: context
            )
            #expect(try alice.work.own(in: context) == [fuel, tyres, again])
            let report = try await alice.work.sync(in: context)
            #expect(report.sent.answered == [.applied: 3], "the second reading is based on the first")
            #expect(try await Self.entity(server, "F-GKXA-fuel")["reading"] == "8.2 bar")
            #expect(try alice.work.own(in: context).isEmpty)
            #expect(try context.credentials.keys().filter { $0.hasPrefix("gangway.offline.own") }.isEmpty)
            try await alice.app.manager.close()
        }
    }

    @Test(
        "the app's data is one copy on the device: the next user reads it offline at once, sealed, with only their own edits over it"
    )
    func oneSharedCopy() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server, shared: true)
            let shared = SharedAppData(
                location: SecureStoreLocation(
                    directory: alice.device.temporary.appending("shared-data"),
                    environment: alice.device.root.environment
                )
            )
            let work = OfflineWork(services: alice.device.services, outbox: alice.work.outbox, shared: shared)
            let aliceContext = try await alice.context()
            let read = try await work.reader.read("checks", in: aliceContext)
            #expect(read.failure == nil)
            #expect(read.entities.map(\.id) == ["F-GKXA-fuel", "F-GKXA-tyres"])
            #expect(try aliceContext.credentials.data(forKey: "gangway.data.checks") == nil, "not a copy of her own")
            try work.edit("checks", entityID: "F-GKXA-fuel", fields: ["note": "Leak-At-Valve"], in: aliceContext)
            let aliceSees = try work.view(read.entities, of: "checks", in: aliceContext)
            #expect(aliceSees.first { $0.id == "F-GKXA-fuel" }?.entity["note"] == "Leak-At-Valve")

            // Bob joins with the server out of reach: the device's copy is there at once.
            alice.app.presenter.append(.welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode))
            _ = try await alice.app.manager.addUser()
            let bobContext = try await alice.context()
            let kept = try #require(try work.reader.kept("checks", in: bobContext))
            #expect(kept.entities.map(\.id) == ["F-GKXA-fuel", "F-GKXA-tyres"])
            let bobSees = try work.view(kept.entities, of: "checks", in: bobContext)
            #expect(
                bobSees.allSatisfy { !$0.pending && $0.entity["note"] == nil },
                "Alice's edit is hers until applied"
            )

            // Sealed at rest: no value of the app's data in the copy's files.
            var bytes = Data()
            let files = FileManager.default.enumerator(at: shared.location.directory, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL { bytes.append((try? Data(contentsOf: file)) ?? Data()) }
            #expect(!bytes.isEmpty)
            for value in ["F-GKXA-fuel", "A320 F-GKXA", "tyres"] {
                #expect(bytes.range(of: Data(value.utf8)) == nil, "\(value) is readable in the shared copy's files")
            }

            try shared.erase()
            #expect(!shared.location.exists)
            #expect(try work.reader.kept("checks", in: bobContext) == nil)
            try await alice.app.manager.close()
        }
    }

    @Test(
        "a set with a subset is each user's own on a shared device: alice's stand in her store, bob's in his, none in the device's"
    )
    func partsOnASharedDevice() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.admin(
                .put,
                "/admin/apps/checks/schemas/checks",
                json: #"""
                    {"fields": [{"name": "aircraft", "type": "text"}, {"name": "item", "type": "text"},
                        {"name": "status", "type": "text"}, {"name": "reading", "type": "text"},
                        {"name": "note", "type": "text"}, {"name": "stand", "type": "text"}],
                     "subset": {"field": "stand", "attribute": "stands"}}
                    """#
            )
            try await server.admin(.patch, "/admin/users/alice", json: #"{"attributes": {"stands": ["12"]}}"#)
            try await server.admin(.patch, "/admin/users/bob", json: #"{"attributes": {"stands": ["14"]}}"#)
            try await server.admin(
                .put,
                "/admin/apps/checks/data/checks/S12-oil",
                json: #"{"fields": {"stand": "12", "item": "Oil-Level-Twelve", "status": "open"}}"#
            )
            try await server.admin(
                .put,
                "/admin/apps/checks/data/checks/S12-tyres",
                json: #"{"fields": {"stand": "12", "item": "Tyres-Twelve", "status": "open"}}"#
            )
            try await server.admin(
                .put,
                "/admin/apps/checks/data/checks/S14-oil",
                json: #"{"fields": {"stand": "14", "item": "Oil-Level-Fourteen", "status": "open"}}"#
            )
            let alice = try await Self.aliceSignedIn(server, shared: true)
            let shared = SharedAppData(
                location: SecureStoreLocation(
                    directory: alice.device.temporary.appending("shared-data"),
                    environment: alice.device.root.environment
                )
            )
            let work = OfflineWork(services: alice.device.services, outbox: alice.work.outbox, shared: shared)
            let aliceContext = try await alice.context()
            let aliceRead = try await work.reader.read("checks", in: aliceContext)
            #expect(aliceRead.failure == nil)
            #expect(aliceRead.entities.map(\.id) == ["S12-oil", "S12-tyres"])
            #expect(try aliceContext.credentials.data(forKey: "gangway.data.checks") != nil, "her own copy")
            try work.edit("checks", entityID: "S12-oil", fields: ["note": "Leak-At-Valve"], in: aliceContext)
            // The app's one local store, filled for alice.
            let local = try LocalEntityStore()
            try work.update(local, with: try await work.reader.sync("checks", in: aliceContext), in: aliceContext)
            #expect(try local.entities(LocalQuery("checks")).map(\.id) == ["S12-oil", "S12-tyres"])

            alice.app.presenter.append(.welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode))
            _ = try await alice.app.manager.addUser()
            let bobContext = try await alice.context()
            #expect(try work.reader.kept("checks", in: bobContext) == nil, "nothing of alice's is his")
            let bobRead = try await work.reader.read("checks", in: bobContext)
            #expect(bobRead.entities.map(\.id) == ["S14-oil"])
            let bobSees = try work.view(bobRead.entities, of: "checks", in: bobContext)
            #expect(bobSees.map(\.entity.id) == ["S14-oil"] && bobSees.allSatisfy { !$0.pending })
            // Bob's sync brings nothing new, but the local store was alice's: it is filled
            // again with his part, never brought up to date over hers.
            let bobSync = try await work.reader.sync("checks", in: bobContext)
            #expect(!bobSync.replaced && !bobSync.changed)
            try work.update(local, with: bobSync, in: bobContext)
            #expect(try local.entities(LocalQuery("checks")).map(\.id) == ["S14-oil"])

            // The device's copy was never made; and alice's stand is nowhere in what bob's
            // session reads.
            #expect(!shared.location.exists)
            var values = try bobContext.credentials.keys().map { key in
                (key, try #require(try bobContext.credentials.data(forKey: key)))
            }
            values += try #require(bobContext.secureStore).records(in: "gangway.data/checks").map { ($0.key, $0.value) }
            #expect(values.contains { $0.0 == "S14-oil" }, "his part is kept as records")
            for (key, value) in values {
                for text in ["S12-oil", "S12-tyres", "Oil-Level-Twelve", "Tyres-Twelve", "Leak-At-Valve"] {
                    #expect(
                        value.range(of: Data(text.utf8)) == nil && key != text,
                        "\(text) under \(key) in bob's store"
                    )
                }
            }
            try await alice.app.manager.close()
        }
    }

    @Test("sent one by one, each batch on its way while the last is settled, a rejection still holds what is behind it")
    func batchesOnTheirWayWhileTheLastIsSettled() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            let note = try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["note": "leak"], in: context)
            try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["status": "done"], in: context)
            try alice.work.edit("checks", entityID: "F-GKXA-tyres", fields: ["status": "done"], in: context)
            try alice.work.edit("checks", entityID: "F-GKXA-tyres", fields: ["reading": "8.1 bar"], in: context)
            try await server.admin(.patch, "/admin/apps/checks", json: Self.rules(fields: ["status", "reading"]))

            var progress: [String] = []
            let token = try OfflineChangesAgainstServerTests.token(context.credentials)
            let report = try await OutboxSender(
                client: MobileServicesClient(serverURL: server.url),
                appID: "checks",
                outbox: alice.work.outbox
            ).sendAll(token: token, batchSize: 1) { done, total in progress.append("\(done)/\(total)") }
            // Nothing sent twice, the note refused, the status behind it held, the tyres' two
            // changes applied in turn.
            #expect(report.answered == [.rejected: 1, .applied: 2])
            #expect(progress == ["1/4", "2/4", "3/4"], "the held change is never sent")
            #expect(try await Self.entity(server, "F-GKXA-fuel")["status"] == "open")
            let tyres = try await Self.entity(server, "F-GKXA-tyres")
            #expect(tyres.version == 3 && tyres["reading"] == "8.1 bar" && tyres["status"] == "done")
            #expect(try alice.work.outbox.count(registrationID: try #require(try alice.registrationID(context))) == 1)
            #expect(try alice.work.collect(in: context).map(\.id) == [note.id])
            let changes = try await AdminClient(serverURL: server.url, adminToken: server.adminToken)
                .changes(app: "checks")
            #expect(changes.count == 3, "each change sent once")
            try await alice.app.manager.close()
        }
    }

    @Test("a field the author edits twice offline is applied twice, not a conflict with their own edit")
    func twiceOffline() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["reading": "8.0 bar"], in: context)
            try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["reading": "8.2 bar"], in: context)
            try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["status": "done"], in: context)
            let report = try await alice.work.sync(in: context)
            #expect(report.sent.answered == [.applied: 3])
            let fuel = try await Self.entity(server, "F-GKXA-fuel")
            #expect(fuel.version == 4 && fuel["reading"] == "8.2 bar" && fuel["status"] == "done")
            try await alice.app.manager.close()
        }
    }

    @Test(
        "the device losing the outbox's tag key keeps each entity's changes in order and lets a refusal be answered"
    )
    func tagKeyLost() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            let note = try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["note": "leak"], in: context)
            try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["status": "done"], in: context)
            try alice.work.edit("checks", entityID: "F-GKXA-tyres", fields: ["status": "done"], in: context)
            try await server.admin(.patch, "/admin/apps/checks", json: Self.rules(fields: ["status", "reading"]))

            // The key store loses the key; the app's next open makes a new one.
            try alice.device.deviceKeys.delete(Outbox.tagKeyName)
            let outbox = try Outbox(directory: alice.device.temporary.url, deviceKeys: alice.device.deviceKeys)
            #expect(outbox.unfiled == 3)
            let work = OfflineWork(services: alice.device.services, outbox: outbox)
            // Made under the new key, after the fuel changes under the old one.
            try work.edit("checks", entityID: "F-GKXA-fuel", fields: ["reading": "8.3 bar"], in: context)

            // Her session files them again from her record before it sends: the note is
            // refused, the fuel's later changes wait for her, the tyres go.
            let first = try await work.sync(in: context)
            #expect(try outbox.unfiledCount(registrationID: try #require(try alice.registrationID(context))) == 0)
            #expect(first.sent.answered == [.rejected: 1, .applied: 1])
            #expect(first.archived.map(\.id) == [note.id])
            #expect(try await Self.entity(server, "F-GKXA-fuel").version == 1, "nothing overtook the note")
            #expect(try await Self.entity(server, "F-GKXA-tyres")["status"] == "done")
            #expect(try await work.sync(in: context).sent.settled == 0, "the fuel waits for her")

            // She lets the refused note go; the fuel's two changes follow in turn.
            try work.discard(note.id, in: context)
            let third = try await work.sync(in: context)
            #expect(third.sent.answered == [.applied: 2])
            let fuel = try await Self.entity(server, "F-GKXA-fuel")
            #expect(fuel.version == 3 && fuel["status"] == "done" && fuel["reading"] == "8.3 bar")
            try await alice.app.manager.close()
        }
    }

    @Test("a pending change discarded never leaves the device")
    func discardPending() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server)
            let context = try await alice.context()
            let change = try alice.work.edit("checks", entityID: "F-GKXA-fuel", fields: ["status": "done"], in: context)
            try alice.work.discard(change.id, in: context)
            #expect(try alice.work.own(in: context).isEmpty)
            #expect(try await alice.work.sync(in: context).sent.settled == 0)
            #expect(try await Self.entity(server, "F-GKXA-fuel").version == 1)
            try await alice.app.manager.close()
        }
    }

    @Test(
        "the next user carries the previous user's changes only where the app allows it; otherwise they wait for their author",
        arguments: [false, true]
    )
    func handOver(allowed: Bool) async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server, shared: true, carryPrevious: allowed)
            let aliceContext = try await alice.context()
            let change = try alice.work.edit(
                "checks",
                entityID: "F-GKXA-fuel",
                fields: ["status": "done"],
                in: aliceContext
            )

            alice.app.presenter.append(.welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode))
            _ = try await alice.app.manager.addUser()
            let bobContext = try await alice.context()
            _ = try await alice.refresh()
            #expect(try alice.work.waiting(in: bobContext) == (own: 0, others: 1))
            let bobEdit = try alice.work.edit(
                "checks",
                entityID: "F-GKXA-tyres",
                fields: ["status": "done"],
                in: bobContext
            )
            var progress: [String] = []
            let report = try await alice.work.sync(in: bobContext) { done, total in progress.append("\(done)/\(total)")
            }
            #expect(report.sent.answered == [.applied: allowed ? 2 : 1])
            #expect(progress == [allowed ? "2/2" : "1/1"])
            #expect(try alice.work.own(in: bobContext).isEmpty, "Bob's change is answered; Alice's are not his")
            #expect(try await Self.entity(server, "F-GKXA-fuel")["status"] == (allowed ? "done" : "open"))
            #expect(try await Self.entity(server, "F-GKXA-tyres").updatedBy == "bob")
            _ = bobEdit
            if allowed {
                #expect(
                    try await Self.entity(server, "F-GKXA-fuel").updatedBy == "alice",
                    "the author, not the carrier"
                )
            }

            // Alice's next session: her change goes now if it had waited, and its answer is hers.
            let aliceID = try #require(
                try alice.app.registry.users().first { $0.displayName.lowercased().contains("alice") }
            ).id
            alice.app.presenter.append(.unlock(ServicesDevice.alicePasscode))
            _ = try await alice.app.manager.switchUser(to: aliceID)
            let back = try await alice.context()
            #expect(try alice.work.own(in: back).map(\.id) == [change.id])
            let hers = try await alice.work.sync(in: back)
            #expect(hers.sent.answered == (allowed ? [:] : [.applied: 1]))
            #expect(try alice.work.own(in: back).isEmpty)
            #expect(try await Self.entity(server, "F-GKXA-fuel")["status"] == "done")
            #expect(try alice.work.outbox.readyCount() == 0)
            try await alice.app.manager.close()
        }
    }

    @Test(
        "a blocked author's change carried by another user is held on the device, recorded nowhere; after the unblock it goes once"
    )
    func blockedAuthor() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server, shared: true, carryPrevious: true)
            let change = try alice.work.edit(
                "checks",
                entityID: "F-GKXA-fuel",
                fields: ["status": "done"],
                in: try await alice.context()
            )
            alice.app.presenter.append(.welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode))
            _ = try await alice.app.manager.addUser()
            try await server.admin(.patch, "/admin/users/alice", json: #"{"blocked": true}"#)
            let report = try await alice.work.sync(in: try await alice.context())
            #expect(report.sent.answered == [.held: 1])
            #expect(try await Self.entity(server, "F-GKXA-fuel")["status"] == "open")
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            #expect(try await admin.changes(app: "checks", outcome: nil).isEmpty, "nothing recorded")
            // Held, not ended: it still waits in the outbox, and goes again at the next sync.
            #expect(try alice.work.outbox.readyCount() == 1)
            #expect(try await alice.work.sync(in: try await alice.context()).sent.answered == [.held: 1])

            try await server.admin(.patch, "/admin/users/alice", json: #"{"blocked": false}"#)
            let after = try await alice.work.sync(in: try await alice.context())
            #expect(after.sent.answered == [.applied: 1])
            #expect(try await Self.entity(server, "F-GKXA-fuel")["status"] == "done")
            let recorded = try #require(try await admin.changes(app: "checks", outcome: nil).first)
            #expect(recorded.changeID == change.id && recorded.author == "alice" && recorded.carrier == "bob")
            #expect(try await admin.changes(app: "checks", outcome: nil).count == 1, "exactly once")
            #expect(try alice.work.outbox.readyCount() == 0)
            try await alice.app.manager.close()
        }
    }

    @Test("a dead network is tried again with a doubling wait, never archives a change, and loses nothing")
    func backoff() async throws {
        let temporary = try TemporaryDirectory(prefix: "gangway-offline-backoff")
        defer { temporary.remove() }
        let outbox = try Outbox(directory: temporary.url, deviceKeys: InMemoryDeviceKeyStore())
        let keys = OfflineKeys()
        try outbox.record(
            by: keys.author(name: "alice", registrationID: "reg-alice"),
            entitySet: "checks",
            entityID: "F-GKXA-fuel",
            baseVersion: 1,
            fields: ["status": "done"],
            madeAt: Date(),
            sealingTo: SealingPrivateKey().publicKey
        )
        let waits = Mutex<[Duration]>([])
        let sender = OutboxSender(
            client: MobileServicesClient(serverURL: URL(string: "http://127.0.0.1:1")!),
            appID: "checks",
            outbox: outbox,
            attempts: 4,
            firstWait: .milliseconds(100),
            sleep: { wait in waits.withLock { $0.append(wait) } }
        )
        await #expect(throws: ServiceError.unreachable) { try await sender.sendAll(token: SessionToken("t")) }
        #expect(waits.withLock { $0 } == [.milliseconds(100), .milliseconds(200), .milliseconds(400)])
        #expect(try outbox.ready().count == 1)
        #expect(try outbox.answers(registrationID: "reg-alice", openingWith: keys.answers).isEmpty)
    }

    @Test(
        "a local store brought up to date by each sync's changes alone holds what a fill from the whole copy holds"
    )
    func localStoreUpdatedByChanges() async throws {
        try await TestServer.run(seed: .checks) { server in
            let alice = try await Self.aliceSignedIn(server, rules: Self.rules(creation: true))
            let context = try await alice.context()
            let reader = alice.work.reader
            let local = try LocalEntityStore()
            let all = LocalQuery("checks")
            // The store does not hold the set yet: the first update fills it.
            try alice.work.update(local, with: try await reader.sync("checks", in: context), in: context)
            #expect(try local.count(all) == 2)
            var random = Lehmer(seed: 55)
            for round in 0..<16 {
                for _ in 0..<3 {
                    let id = "c\(random.next(below: 8))"
                    switch random.next(below: 5) {
                    case 0:
                        // Refused when there is none: the sequence goes on.
                        _ = try? await server.admin(.delete, "/admin/apps/checks/data/checks/\(id)")
                    case 1:
                        // The user's own edit (or creation), shown pending over the server's.
                        try alice.work.edit("checks", entityID: id, fields: ["status": "own \(round)"], in: context)
                    default:
                        let body = #"{"fields": {"aircraft": "A320", "status": "r\#(round)"}}"#
                        _ = try await server.admin(.put, "/admin/apps/checks/data/checks/\(id)", json: body)
                    }
                }
                if round % 5 == 4 { _ = try await alice.work.sync(in: context) }
                let synced = try await reader.sync("checks", in: context)
                #expect(synced.isFresh && !synced.replaced)
                try alice.work.update(local, with: synced, in: context)
                let fresh = try LocalEntityStore()
                try alice.work.fill(fresh, with: "checks", in: context)
                let (updated, filled) = (try local.entities(all), try fresh.entities(all))
                #expect(updated == filled, "round \(round): \(updated.map(\.id)) \(filled.map(\.id))")
                #expect(try local.count(all) == fresh.count(all))
            }
            #expect(try local.count(all) > 2)
        }
    }
}

extension OfflineWorkTests.Signed {
    func registrationID(_ context: FlowContext) throws -> String? {
        try context.credentials.data(forKey: "gangway.services.registration").map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}

/// A small seeded generator (Park and Miller's), so a failing sequence comes back.
struct Lehmer {
    private var state: UInt64

    init(seed: UInt64) { state = seed % 2_147_483_647 + 1 }

    mutating func next(below bound: Int) -> Int {
        state = state * 48_271 % 2_147_483_647
        return Int(state % UInt64(bound))
    }
}

import Foundation
import GangwayFlows
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Testing

@Suite("App data on the device: read from the server, kept encrypted for offline")
struct AppDataReaderTests {
    static let fuel = #"{"fields": {"aircraft": "A320 F-GKXA", "item": "fuel level", "status": "open"}}"#
    static let fuelDone = #"{"fields": {"aircraft": "A320 F-GKXA", "item": "fuel level", "status": "done"}}"#

    /// Alice signed in on a new device, once the checks `ids` (each the fuel check) are on
    /// the server: the device, the app, a reader and the session's context.
    static func alice(
        on server: RunningTestServer,
        checks ids: [String]
    ) async throws -> (ServicesDevice, ServicesApp, AppDataReader, FlowContext) {
        for id in ids { try await server.admin(.put, "/admin/apps/checks/data/checks/\(id)", json: fuel) }
        let device = try ServicesDevice(server: server)
        let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
        try await app.manager.open()
        return (device, app, AppDataReader(services: device.services), try #require(await app.manager.flowContext))
    }

    @Test func theServersEntitiesAreReadThenKeptForWhenItCannotBeReached() async throws {
        try await TestServer.run(seed: .checks) { server in
            let (device, app, reader, context) = try await Self.alice(on: server, checks: ["F-GKXA-fuel"])

            let first = try await reader.read("checks", in: context)
            #expect(first.isFresh)
            #expect(first.entities.map(\.id) == ["F-GKXA-fuel"])
            #expect(first.entities.first?["status"] == "open")
            #expect(first.fetchedAt == device.wallClock.now())
            let firstRead = try #require(first.fetchedAt)

            device.wallClock.advance(by: .seconds(600))
            try await server.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: Self.fuelDone)
            let second = try await reader.read("checks", in: context)
            #expect(second.entities.first?["status"] == "done")
            #expect(second.entities.first?.version == 2)
            #expect(second.fetchedAt == firstRead.addingTimeInterval(600))
            #expect(try reader.kept("checks", in: context)?.entities == second.entities)
            try await app.manager.close()

            // Offline: the copy kept at the last read, and why it is not fresh.
            try device.goOffline()
            let offline = try device.launch(.unlock(ServicesDevice.alicePasscode))
            try await offline.manager.open()
            let offlineContext = try #require(await offline.manager.flowContext)
            device.wallClock.advance(by: .seconds(60))
            let kept = try await reader.read("checks", in: offlineContext)
            #expect(kept.failure == .unreachable)
            #expect(!kept.isFresh)
            #expect(kept.entities == second.entities)
            // Kept to the millisecond.
            let keptAt = try #require(kept.fetchedAt)
            #expect(abs(keptAt.timeIntervalSince(try #require(second.fetchedAt))) < 0.001)
            // A set never read: nothing kept, and the reason.
            let never = try await reader.read("parts", in: offlineContext)
            #expect(never.entities.isEmpty && never.fetchedAt == nil && never.failure == .unreachable)
            try await offline.manager.close()

            // Kept encrypted: no file on the device holds a field in the clear.
            let files = FileManager.default.enumerator(at: device.temporary.url, includingPropertiesForKeys: nil)
            var clear: [String] = []
            while let file = files?.nextObject() as? URL {
                if let data = try? Data(contentsOf: file), data.range(of: Data("A320 F-GKXA".utf8)) != nil {
                    clear.append(file.lastPathComponent)
                }
            }
            #expect(clear.isEmpty)
            #expect(!device.logsHoldASecret)
        }
    }

    @Test func aWipedRegistrationReadsNothingNewAndSaysWhy() async throws {
        try await TestServer.run(seed: .checks) { server in
            let (device, app, reader, context) = try await Self.alice(on: server, checks: ["F-GKXA-fuel"])
            _ = try await reader.read("checks", in: context)

            try await server.setDevice(of: "alice", to: "wiped")
            try await server.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: Self.fuelDone)
            let refused = try await reader.read("checks", in: context)
            #expect(refused.failure == .registrationWiped)
            #expect(refused.entities.first?["status"] == "open")
            #expect(!device.logsHoldASecret)
            try await app.manager.close()
        }
    }

    @Test func laterReadsBringOnlyWhatChangedAndAForgottenCursorReadsTheSetAgain() async throws {
        try await TestServer.run(seed: .checks) { server in
            let (device, app, reader, context) = try await Self.alice(on: server, checks: ["a", "b", "c"])
            #expect(try await reader.read("checks", in: context).entities.map(\.id) == ["a", "b", "c"])

            try await server.admin(.put, "/admin/apps/checks/data/checks/b", json: Self.fuelDone)
            try await server.admin(.delete, "/admin/apps/checks/data/checks/c")
            try await server.admin(.put, "/admin/apps/checks/data/checks/d", json: Self.fuel)
            let second = try await reader.read("checks", in: context)
            #expect(second.entities.map(\.id) == ["a", "b", "d"])
            #expect(second.entities.map { $0["status"] } == ["open", "done", "open"])
            #expect(second.entities.map(\.version) == [1, 2, 1])

            // The server forgets the removal of a; the device's cursor is older, and the
            // server says so: the reader reads the set again, and the removal is seen.
            try await server.admin(.delete, "/admin/apps/checks/data/checks/a")
            _ = try await server.server.storage.purgeRemovals(before: .distantFuture)
            let third = try await reader.read("checks", in: context)
            #expect(third.isFresh)
            #expect(third.entities.map(\.id) == ["b", "d"])
            #expect(try reader.kept("checks", in: context)?.entities == third.entities)
            try await app.manager.close()
            #expect(!device.logsHoldASecret)
        }
    }

    @Test func aReadThatWaitsIsAnsweredByTheNextChangeAndOtherwiseAtItsEnd() async throws {
        try await TestServer.run(seed: .checks) { server in
            let (device, app, reader, context) = try await Self.alice(on: server, checks: ["a"])
            #expect(try await reader.read("checks", in: context).entities.map(\.id) == ["a"])

            // Current: the answer waits for the change, and brings it.
            let start = ContinuousClock.now
            async let live = reader.read("checks", in: context, waitingUpTo: 15)
            try await Task.sleep(for: .milliseconds(400))
            try await server.admin(.put, "/admin/apps/checks/data/checks/b", json: Self.fuel)
            let reading = try await live
            let waited = ContinuousClock.now - start
            #expect(reading.isFresh)
            #expect(reading.entities.map(\.id) == ["a", "b"])
            #expect(waited >= .milliseconds(400) && waited < .seconds(10), "\(waited)")
            #expect(try reader.kept("checks", in: context)?.entities == reading.entities)

            // Nothing changes: the answer comes at the wait's end, with the copy as it was.
            let quiet = ContinuousClock.now
            let unchanged = try await reader.read("checks", in: context, waitingUpTo: 1)
            #expect(unchanged.isFresh && unchanged.entities == reading.entities)
            #expect(ContinuousClock.now - quiet >= .seconds(1))
            try await app.manager.close()
            #expect(!device.logsHoldASecret)
        }
    }

    @Test func aSyncBringsAndKeepsOnlyWhatChangedOneRecordPerEntity() async throws {
        try await TestServer.run(seed: .checks) { server in
            let (device, app, reader, context) = try await Self.alice(on: server, checks: ["a", "b", "c"])
            let store = try #require(context.secureStore)

            let first = try await reader.sync("checks", in: context)
            #expect(first.replaced && first.isFresh && first.changed)
            #expect(first.upserted.map(\.id) == ["a", "b", "c"] && first.removedIDs.isEmpty)
            #expect(try store.recordCount(in: "gangway.data/checks") == 3)

            try await server.admin(.put, "/admin/apps/checks/data/checks/b", json: Self.fuelDone)
            try await server.admin(.delete, "/admin/apps/checks/data/checks/c")
            try await server.admin(.put, "/admin/apps/checks/data/checks/d", json: Self.fuel)
            let second = try await reader.sync("checks", in: context)
            #expect(!second.replaced)
            #expect(second.upserted.map(\.id) == ["b", "d"])
            #expect(second.upserted.first?["status"] == "done" && second.upserted.first?.version == 2)
            #expect(second.removedIDs == ["c"])
            #expect(try reader.kept("checks", in: context)?.entities.map(\.id) == ["a", "b", "d"])
            #expect(try reader.keptEntity("b", of: "checks", in: context)?["status"] == "done")
            #expect(try reader.keptEntity("c", of: "checks", in: context) == nil)
            #expect(try reader.keptEntity("", of: "checks", in: context) == nil)
            #expect(try store.recordCount(in: "gangway.data/checks") == 3)
            // Where the copy stands is one small entry, whatever the set's size.
            #expect(try (store.data(forKey: "gangway.data.checks")?.count ?? .max) < 200)

            // Nothing new: nothing changes.
            let quiet = try await reader.sync("checks", in: context)
            #expect(quiet.isFresh && !quiet.changed)

            // A cursor the server forgot: the set again, whole, what was kept replaced.
            try await server.admin(.delete, "/admin/apps/checks/data/checks/a")
            _ = try await server.server.storage.purgeRemovals(before: .distantFuture)
            let again = try await reader.sync("checks", in: context)
            #expect(again.replaced && again.upserted.map(\.id) == ["b", "d"] && again.removedIDs.isEmpty)
            #expect(try store.recordCount(in: "gangway.data/checks") == 2)
            try await app.manager.close()
            #expect(!device.logsHoldASecret)
        }
    }

    @Test func aCopyAnEarlierVersionKeptWholeIsReadThenMovedIntoRecordsAndSyncedOn() async throws {
        try await TestServer.run(seed: .checks) { server in
            let (device, app, reader, context) = try await Self.alice(on: server, checks: ["a", "b"])
            let store = try #require(context.secureStore)
            let entities = try await reader.read("checks", in: context).entities
            // As an earlier version kept it: one entry with every entity, and the cursor.
            let state = try #require(try store.data(forKey: "gangway.data.checks"))
            var whole = try #require(try JSONSerialization.jsonObject(with: state) as? [String: Any])
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            whole["entities"] = try JSONSerialization.jsonObject(with: try encoder.encode(entities))
            try store.write { batch throws(SecureStoreError) in
                try batch.removeRecords(in: "gangway.data/checks")
                try batch.put(try! JSONSerialization.data(withJSONObject: whole), forKey: "gangway.data.checks")
            }
            #expect(try store.recordCount(in: "gangway.data/checks") == 0)

            #expect(try reader.kept("checks", in: context)?.entities == entities)
            #expect(try store.recordCount(in: "gangway.data/checks") == 2)
            try await server.admin(.put, "/admin/apps/checks/data/checks/a", json: Self.fuelDone)
            let synced = try await reader.sync("checks", in: context)
            #expect(!synced.replaced && synced.upserted.map(\.id) == ["a"])
            #expect(try reader.kept("checks", in: context)?.entities.map { $0["status"] } == ["done", "open"])
            try await app.manager.close()
            #expect(!device.logsHoldASecret)
        }
    }

    @Test func aCopyThatDoesNotReadBackIsSaidSoThenBuiltAgainFromTheServer() async throws {
        try await TestServer.run(seed: .checks) { server in
            let (device, app, reader, context) = try await Self.alice(on: server, checks: ["a", "b"])
            let store = try #require(context.secureStore)
            #expect(try await reader.read("checks", in: context).entities.map(\.id) == ["a", "b"])

            // A record cut short anywhere, or with a byte more, is not an entity.
            let whole = try #require(try store.record("a", in: "gangway.data/checks"))
            for cut in [Data(whole.prefix(0))] + (1..<whole.count).map({ Data(whole.prefix($0)) }) + [whole + [0]] {
                try store.write { batch throws(SecureStoreError) in
                    try batch.putRecord(cut.isEmpty ? Data([1]) : cut, forKey: "a", in: "gangway.data/checks")
                }
                #expect(throws: SecureStoreError.integrityFailure, "\(cut.count) of \(whole.count) bytes") {
                    try reader.keptEntity("a", of: "checks", in: context)
                }
            }
            // A record that is not an entity (as another version might write it).
            try store.write { batch throws(SecureStoreError) in
                try batch.putRecord(Data([9, 9, 9]), forKey: "a", in: "gangway.data/checks")
            }
            #expect(throws: SecureStoreError.integrityFailure) { try reader.kept("checks", in: context) }
            #expect(throws: SecureStoreError.integrityFailure) { try reader.keptEntity("a", of: "checks", in: context) }
            #expect(try reader.keptEntity("b", of: "checks", in: context)?.id == "b")
            let rebuilt = try await reader.read("checks", in: context)
            #expect(rebuilt.isFresh && rebuilt.entities.map(\.id) == ["a", "b"])
            #expect(rebuilt.entities.first?["status"] == "open")

            // Where the copy stands cannot be read: the next sync takes the set whole.
            try store.put(Data("not the copy's state".utf8), forKey: "gangway.data.checks")
            #expect(throws: SecureStoreError.integrityFailure) { try reader.kept("checks", in: context) }
            let again = try await reader.sync("checks", in: context)
            #expect(again.isFresh && again.replaced && again.upserted.map(\.id) == ["a", "b"])
            #expect(try reader.kept("checks", in: context)?.entities.map(\.id) == ["a", "b"])
            #expect(try store.recordCount(in: "gangway.data/checks") == 2)
            #expect(!device.logsHoldASecret)
            try await app.manager.close()
        }
    }
}

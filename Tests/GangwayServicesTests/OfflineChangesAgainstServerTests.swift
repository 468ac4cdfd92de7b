import Foundation
import GangwayAdmin
import GangwayFlows
import GangwayPolicy
import GangwayProtocol
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Testing

@Suite("Offline changes through the real server: recorded in the outbox, carried by any user of the device")
struct OfflineChangesAgainstServerTests {
    static let rules = #"""
        {"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": ["status", "reading", "note"], "allowsCreation": false}}}}}
        """#
    static let fuel = #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "reading": "7.9 bar"}}"#

    /// The session token the sign-in step kept with the user's credentials.
    static func token(_ credentials: any CredentialStore) throws -> SessionToken {
        let data = try #require(try credentials.data(forKey: "gangway.services.token"))
        return SessionToken(String(decoding: data, as: UTF8.self))
    }

    @Test func theNextUserCarriesThePreviousUsersChangeWhichStaysTheirsAndOnlyTheyReadTheAnswer() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.admin(.patch, "/admin/apps/checks", json: Self.rules)
            try await server.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: Self.fuel)
            let device = try ServicesDevice(server: server, shared: true)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            let aliceCredentials = try #require(await app.manager.flowContext?.credentials)
            // The registration step made Alice's keys and kept them in her store.
            let aliceKeys = try OfflineKeys(
                stored: try #require(try aliceCredentials.data(forKey: OfflineKeys.storeKey))
            )
            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let aliceRegistration = try #require(
                try await admin.devices(app: "checks").first { $0.username == "alice" }
            ).registrationID
            let client = MobileServicesClient(serverURL: server.url)
            let aliceToken = try Self.token(aliceCredentials)
            let settings = try await client.settings(appID: "checks", token: aliceToken)
            #expect(settings.entitySetRules?["checks"]?.writableFields == ["status", "reading", "note"])
            let serverKey = try SealingPublicKey(x963Representation: try #require(settings.changeSealingKey))

            let outbox = try Outbox(directory: device.temporary.appending("outbox"), deviceKeys: device.deviceKeys)
            let made = try outbox.record(
                by: aliceKeys.author(name: "alice", registrationID: aliceRegistration),
                entitySet: "checks",
                entityID: "F-GKXA-fuel",
                baseVersion: 1,
                fields: ["status": "done", "note": "valve ok"],
                madeAt: device.wallClock.now(),
                sealingTo: serverKey
            )

            // Bob takes the device over and carries Alice's change with his session.
            app.presenter.append(.welcome(.signIn), .signIn("bob"), .create(ServicesDevice.bobPasscode))
            _ = try await app.manager.addUser()
            let bobCredentials = try #require(await app.manager.flowContext?.credentials)
            let bobToken = try Self.token(bobCredentials)
            var progress: [Int] = []
            let report = try await OutboxSender(client: client, appID: "checks", outbox: outbox)
                .sendAll(token: bobToken) { done, _ in progress.append(done) }
            #expect(report.answered == [.applied: 1])
            #expect(progress == [1])
            #expect(try outbox.ready().isEmpty)

            let check = try #require(try await admin.entities(app: "checks", entitySet: "checks").entities.first)
            #expect(check.updatedBy == "alice", "the author, not the carrier")
            #expect(check["note"] == "valve ok")
            #expect(check.version == 2)
            let recorded = try await admin.changes(app: "checks")
            #expect(recorded.map(\.author) == ["alice"])
            #expect(recorded.map(\.carrier) == ["bob"])
            #expect(recorded.first?.changeID == made.change.id)
            #expect(recorded.first?.result.outcome == .applied)
            #expect(try await admin.changes(app: "checks", outcome: .conflict).isEmpty)

            let answers = try outbox.answers(registrationID: aliceRegistration, openingWith: aliceKeys.answers)
            #expect(answers[made.change.id]?.outcome == .applied)
            let bobKeys = try OfflineKeys(stored: try #require(try bobCredentials.data(forKey: OfflineKeys.storeKey)))
            #expect(throws: OutboxError.self) {
                try outbox.answers(registrationID: aliceRegistration, openingWith: bobKeys.answers)
            }
            try await app.manager.close()
        }
    }

    @Test func batchesTravelTwoAtATimeEachChangeEndsOnceAndARefusalStillHoldsTheLaterOnes() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.admin(.patch, "/admin/apps/checks", json: Self.rules)
            let checks = 40
            for index in 0..<checks {
                try await server.admin(.put, "/admin/apps/checks/data/checks/check-\(index)", json: Self.fuel)
            }
            let client = MobileServicesClient(serverURL: server.url)
            let session = try await client.signIn(
                appID: "checks",
                username: "alice",
                password: "alice-password",
                deviceID: "device-1"
            )
            let keys = OfflineKeys()
            let registration = try await client.registerDevice(
                appID: "checks",
                token: session.token,
                device: DeviceIdentity(deviceID: "device-1", deviceName: "tablet", appVersion: "1.0.0"),
                changeKey: keys.signing.verifyingKey
            )
            let settings = try await client.settings(appID: "checks", token: session.token)
            let serverKey = try SealingPublicKey(x963Representation: try #require(settings.changeSealingKey))
            let temporary = try TemporaryDirectory(prefix: "gangway-outbox-window")
            defer { temporary.remove() }
            let outbox = try Outbox(directory: temporary.url, deviceKeys: InMemoryDeviceKeyStore())
            let author = keys.author(name: "alice", registrationID: registration.registrationID)
            // Four rounds over the checks; check-0's first change writes a field devices may
            // not, so its three later changes must wait behind the refusal.
            for round in 0..<4 {
                for index in 0..<checks {
                    let refused = round == 0 && index == 0
                    try outbox.record(
                        by: author,
                        entitySet: "checks",
                        entityID: "check-\(index)",
                        baseVersion: Int64(round + 1),
                        fields: refused ? ["aircraft": "A321"] : ["reading": "\(round) bar"],
                        madeAt: Date(),
                        sealingTo: serverKey
                    )
                }
            }
            var progress: [Int] = []
            let report = try await OutboxSender(client: client, appID: "checks", outbox: outbox)
                .sendAll(token: session.token, batchSize: 7) { done, _ in progress.append(done) }
            #expect(report.answered == [.applied: (checks - 1) * 4, .rejected: 1])
            #expect(progress == progress.sorted() && progress.last == report.settled)
            #expect(progress.count >= (checks * 4 - 3) / 7, "in batches of at most 7")
            let held = try outbox.pending(registrationID: registration.registrationID)
            let checkZero = outbox.entityTag(entitySet: "checks", entityID: "check-0")
            #expect(held.map(\.entityTag) == [checkZero, checkZero, checkZero])
            #expect(try outbox.ready().isEmpty)

            let admin = AdminClient(serverURL: server.url, adminToken: server.adminToken)
            let entities = try await admin.entities(app: "checks", entitySet: "checks").entities
            #expect(entities.count == checks)
            for entity in entities {
                let first = entity.id == "check-0"
                #expect(entity.version == (first ? 1 : 5), "\(entity.id): once per change")
                #expect(entity["reading"] == (first ? "7.9 bar" : "3 bar"), "\(entity.id)")
            }
            let recorded = try await admin.changes(app: "checks", limit: 1000)
            #expect(recorded.count == checks * 4 - 3)
            #expect(Set(recorded.map(\.result.changeID)).count == recorded.count)
            #expect(recorded.filter { $0.result.outcome == .rejected }.map(\.entityID) == ["check-0"])
        }
    }

    @Test func withTheServerUnreachableNothingLeavesTheOutbox() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.admin(.patch, "/admin/apps/checks", json: Self.rules)
            let temporary = try TemporaryDirectory(prefix: "gangway-outbox-offline")
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
            let nowhere = MobileServicesClient(serverURL: URL(string: "http://127.0.0.1:1")!)
            await #expect(throws: ServiceError.self) {
                try await OutboxSender(client: nowhere, appID: "checks", outbox: outbox)
                    .sendAll(token: SessionToken("not-a-session"))
            }
            #expect(try outbox.ready().count == 1)
        }
    }
}

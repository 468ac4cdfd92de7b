import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "Devices upload signed changes sealed to the server; it checks each author and ends each change once",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ChangeUploadTests {
    static let rules = #"""
        {"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": ["status", "reading", "note"], "allowsCreation": false}}}}}
        """#
    static let fuel = #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "reading": "7.9 bar"}}"#

    /// A user of device-1 with a registered key.
    struct Author {
        let name: String
        let token: String
        let registrationID: String
        let key: ChangeSigningKey
        /// The server's key this user's device seals changes to.
        let serverKey: SealingPublicKey

        func change(
            sequence: Int64,
            base: Int64? = 1,
            entitySet: String = "checks",
            entity: String = "F-GKXA-fuel",
            _ fields: [String: String]
        ) -> SignedChange {
            key.sign(
                Change(
                    registrationID: registrationID,
                    author: name,
                    sequence: sequence,
                    entitySet: entitySet,
                    entityID: entity,
                    baseVersion: base,
                    fields: fields,
                    madeAt: Date(timeIntervalSince1970: 1_800_000_000)
                )
            )
        }
    }

    static func author(_ name: String, device: String = "device-1", api: API) async throws -> Author {
        let token = try await api.signIn(name, device: device)
        let key = ChangeSigningKey()
        let reply = try await api.send(
            .put,
            "/apps/checks/devices/\(device)",
            token: token,
            json: """
                {"deviceName": "Stand 12 tablet", "platform": "linux", "appVersion": "1.0.0",
                 "changeKey": "\(key.verifyingKey.x963Representation.base64URLEncoded)"}
                """
        )
        try reply.expect(.ok)
        let registration = try reply.decode(Components.Schemas.DeviceRegistration.self)
        return Author(
            name: name,
            token: token,
            registrationID: registration.registrationID,
            key: key,
            serverKey: try await sealingKey(api, token: token)
        )
    }

    /// The body of an upload of `sealed` changes.
    static func body(_ sealed: [Data]) -> String {
        #"{"sealed": [\#(sealed.map { "\"\($0.base64URLEncoded)\"" }.joined(separator: ","))]}"#
    }

    /// `changes` sealed to the server one by one, as devices of earlier versions sent them.
    static func body(_ changes: [SignedChange], to key: SealingPublicKey) throws -> String {
        body(try changes.map { try ChangeSeal.seal($0, to: key) })
    }

    static func upload(
        _ changes: [SignedChange],
        by carrier: Author,
        api: API
    ) async throws -> [Components.Schemas.ChangeResult] {
        try await uploadSealed(
            try changes.map { try ChangeSeal.seal($0, to: carrier.serverKey) },
            by: carrier,
            api: api
        )
    }

    static func fuelCheck(_ api: API, id: String = "F-GKXA-fuel") async throws -> Components.Schemas.Entity {
        let list = try await api.admin(.get, "/admin/apps/checks/data/checks").decode(
            Components.Schemas.EntityList.self
        )
        return try #require(list.entities.first { $0.id == id })
    }

    /// The app with its rules and one check, Alice and Bob on device-1.
    static func prepared(_ api: API) async throws -> (alice: Author, bob: Author) {
        try await api.admin(.patch, "/admin/apps/checks", json: rules).expect(.ok)
        try await api.admin(.put, "/admin/apps/checks/data/checks/F-GKXA-fuel", json: fuel).expect(.created)
        return (try await author("alice", api: api), try await author("bob", api: api))
    }

    @Test("the author's change is applied once; a resend gets its first result", arguments: Backend.available)
    func appliedOnce(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, _) = try await Self.prepared(api)
            let change = alice.change(sequence: 1, ["status": "done", "note": "valve ok"])
            let first = try await Self.upload([change], by: alice, api: api)
            #expect(first.map(\.outcome) == [.applied])
            #expect(first.first?.version == 2)
            #expect(first.first?.changeID == change.change.id.uuidString.lowercased())
            let again = try await Self.upload([change], by: alice, api: api)
            #expect(again.first?.outcome == .duplicate)
            #expect(again.first?.original == .applied)
            let check = try await Self.fuelCheck(api)
            #expect(check.version == 2)
            #expect(check.updatedBy == "alice")
            #expect(check.fields.additionalProperties["note"] == "valve ok")
            #expect(check.fields.additionalProperties["aircraft"] == "A320 F-GKXA")
        }
    }

    @Test("the next user carries the previous user's change, which stays the author's", arguments: Backend.available)
    func handOver(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, bob) = try await Self.prepared(api)
            let change = alice.change(sequence: 1, ["status": "done"])
            let results = try await Self.upload([change], by: bob, api: api)
            #expect(results.map(\.outcome) == [.applied])
            #expect(try await Self.fuelCheck(api).updatedBy == "alice")
            // The admin sees the author apart from the carrier.
            let recorded = try await api.admin(.get, "/admin/apps/checks/changes")
                .decode([Components.Schemas.RecordedChange].self)
            #expect(recorded.map(\.author) == ["alice"])
            #expect(recorded.map(\.carrier) == ["bob"])
            #expect(recorded.first?.changeID == change.change.id.uuidString.lowercased())
            #expect(recorded.first?.registrationID == alice.registrationID)
            #expect(recorded.first?.result.outcome == .applied)
            #expect(recorded.first?.result.version == 2)
        }
    }

    @Test(
        "a forged or altered change in the middle of a batch is refused alone, and spends no change ID",
        arguments: Backend.available
    )
    func forgedInTheMiddle(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, bob) = try await Self.prepared(api)
            let real = alice.change(sequence: 2, ["reading": "8.2 bar"])
            // Bob signs a change in Alice's name, with her change's ID, with his own key.
            let forged = bob.key.sign(real.change)
            var altered = alice.change(sequence: 3, ["note": "ok"])
            altered.change.fields["note"] = "tampered"
            let results = try await Self.upload(
                [
                    alice.change(sequence: 1, ["status": "done"]), forged, altered,
                    alice.change(sequence: 4, ["note": "ok"]),
                ],
                by: bob,
                api: api
            )
            #expect(results.map(\.outcome) == [.applied, .rejected, .rejected, .applied])
            // A signature of the right form that is not the author's is that change's
            // rejection, not a malformed upload.
            var garbled = alice.change(sequence: 5, ["note": "x"])
            garbled.signature[garbled.signature.startIndex] ^= 0xFF
            let garbledResults = try await Self.upload([garbled], by: alice, api: api)
            #expect(garbledResults.map { $0.rejection?.code } == ["SIGNATURE_INVALID"])
            #expect(results[1].rejection?.code == "SIGNATURE_INVALID")
            #expect(results[2].rejection?.code == "SIGNATURE_INVALID")
            // The forged one was not recorded: Alice's real change with that ID applies.
            let later = try await Self.upload([real], by: alice, api: api)
            #expect(later.map(\.outcome) == [.applied])
            let check = try await Self.fuelCheck(api)
            #expect(check.fields.additionalProperties["reading"] == "8.2 bar")
            #expect(check.fields.additionalProperties["note"] == "ok")
        }
    }

    @Test(
        "a change whose author is not the registration's user, or whose registration is another device's, is refused",
        arguments: Backend.available
    )
    func authorMismatch(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, bob) = try await Self.prepared(api)
            // Bob's key, Bob's registration, Alice named as the author.
            let claimed = bob.key.sign(
                Change(
                    registrationID: bob.registrationID,
                    author: "alice",
                    sequence: 1,
                    entitySet: "checks",
                    entityID: "F-GKXA-fuel",
                    baseVersion: 1,
                    fields: ["status": "done"],
                    madeAt: Date(timeIntervalSince1970: 1_800_000_000)
                )
            )
            // Alice on another device: her change there is not this device's to carry.
            let elsewhere = try await Self.author("alice", device: "device-2", api: api)
            let results = try await Self.upload(
                [claimed, elsewhere.change(sequence: 1, ["status": "done"])],
                by: alice,
                api: api
            )
            #expect(results.map { $0.rejection?.code } == ["AUTHOR_MISMATCH", "AUTHOR_MISMATCH"])
            #expect(try await Self.fuelCheck(api).version == 1)
        }
    }

    @Test(
        "refusals of the set's rules are recorded, carry the entity, and hold back nothing else",
        arguments: Backend.available
    )
    func ruleRefusals(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, _) = try await Self.prepared(api)
            let notWritable = alice.change(sequence: 1, ["aircraft": "D-AIZZ"])
            let results = try await Self.upload(
                [
                    notWritable,
                    alice.change(sequence: 2, entitySet: "fuel", ["status": "x"]),
                    alice.change(sequence: 3, base: nil, entity: "F-NEW", ["status": "open"]),
                    alice.change(sequence: 4, entity: "F-GONE", ["status": "open"]),
                    alice.change(sequence: 5, ["status": "done"]),
                ],
                by: alice,
                api: api
            )
            #expect(
                results.map { $0.rejection?.code }
                    == [
                        "FIELD_NOT_WRITABLE", "ENTITY_SET_NOT_WRITABLE", "CREATION_NOT_ALLOWED", "ENTITY_NOT_FOUND",
                        nil,
                    ]
            )
            #expect(results.first?.entity?.fields.additionalProperties["aircraft"] == "A320 F-GKXA")
            #expect(!(results.first?.rejection?.message.contains("D-AIZZ") ?? true), "no value in a message")
            let again = try await Self.upload([notWritable], by: alice, api: api)
            #expect(again.first?.outcome == .duplicate)
            #expect(again.first?.original == .rejected)
            #expect(try await Self.fuelCheck(api).fields.additionalProperties["status"] == "done")
        }
    }

    @Test("a field the admin changed since the author's base keeps the admin's value", arguments: Backend.available)
    func conflictWithTheAdmin(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, _) = try await Self.prepared(api)
            try await api.admin(
                .put,
                "/admin/apps/checks/data/checks/F-GKXA-fuel",
                json: #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "reading": "8.0 bar"}}"#
            ).expect(.ok)
            let results = try await Self.upload(
                [alice.change(sequence: 1, ["reading": "8.2 bar", "status": "done"])],
                by: alice,
                api: api
            )
            let result = try #require(results.first)
            #expect(result.outcome == .conflict)
            #expect(result.conflicts.map(\.field) == ["reading"])
            #expect(result.conflicts.first?.serverValue == "8.0 bar")
            #expect(result.conflicts.first?.deviceValue == "8.2 bar")
            #expect(result.entity?.fields.additionalProperties["reading"] == "8.0 bar")
            #expect(result.entity?.fields.additionalProperties["status"] == "done")
            _ = try await Self.upload([alice.change(sequence: 2, ["note": "ok"])], by: alice, api: api)
            let conflicts = try await api.admin(.get, "/admin/apps/checks/changes?outcome=conflict")
                .decode([Components.Schemas.RecordedChange].self)
            #expect(conflicts.count == 1)
            #expect(conflicts.first?.result.conflicts.first?.serverValue == "8.0 bar")
            let all = try await api.admin(.get, "/admin/apps/checks/changes?limit=1")
                .decode([Components.Schemas.RecordedChange].self)
            #expect(all.map(\.result.outcome) == [.applied], "newest first")
            #expect(try await api.admin(.get, "/admin/apps/checks/changes?limit=0").status == .badRequest)
        }
    }

    @Test(
        "a locked carrier is refused; a locked author's change is held, recorded nowhere, and ended once after the unlock",
        arguments: Backend.available
    )
    func lockedRegistrations(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let (alice, bob) = try await Self.prepared(api)
            fixture.clock.advance(by: .seconds(1))
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(alice.registrationID)",
                json: #"{"status": "locked"}"#
            ).expect(.ok)
            let change = alice.change(sequence: 1, ["status": "done"])
            let refused = try await api.send(
                .post,
                "/apps/checks/changes/sealed",
                token: alice.token,
                json: try Self.body([change], to: alice.serverKey)
            )
            #expect(refused.status == .forbidden)
            #expect(refused.code == "TRAFFIC_REG_LOCKED")
            let carried = try await Self.upload([change], by: bob, api: api)
            #expect(carried.first?.outcome == .held)
            #expect(carried.first?.rejection?.code == "AUTHOR_HELD")
            #expect(try await Self.fuelCheck(api).version == 1)
            let recorded = try await api.admin(.get, "/admin/apps/checks/changes")
                .decode([Components.Schemas.RecordedChange].self)
            #expect(recorded.isEmpty, "a held change is recorded nowhere")
            // Bob's lock ends when Alice signs in again; her change then goes once.
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(alice.registrationID)",
                json: #"{"status": "active"}"#
            ).expect(.ok)
            #expect(try await Self.upload([change], by: bob, api: api).first?.outcome == .applied)
            #expect(try await Self.upload([change], by: bob, api: api).first?.outcome == .duplicate)
            #expect(try await Self.fuelCheck(api).version == 2)
        }
    }

    @Test(
        "malformed uploads and keys are 400s, a change that breaks the limits is refused alone, and none changes anything",
        arguments: Backend.available
    )
    func malformed(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, _) = try await Self.prepared(api)
            let good = try ChangeSeal.seal(alice.change(sequence: 1, ["status": "done"]), to: alice.serverKey)
            for body in [Self.body([]), Self.body(Array(repeating: good, count: 501))] {
                let reply = try await api.send(.post, "/apps/checks/changes/sealed", token: alice.token, json: body)
                #expect(reply.status == .badRequest, "\(body.prefix(80))")
            }
            let results = try await Self.upload(
                [
                    alice.change(sequence: 0, ["status": "done"]),
                    alice.change(sequence: 2, base: 0, ["status": "done"]),
                    alice.change(sequence: 3, entitySet: "che cks", ["status": "done"]),
                    alice.change(sequence: 4, entity: "", ["status": "done"]),
                    alice.change(sequence: 5, [:]),
                    alice.change(sequence: 6, ["status": String(repeating: "x", count: 1025)]),
                    alice.change(sequence: 7, Dictionary(uniqueKeysWithValues: (0...64).map { ("f\($0)", "x") })),
                ],
                by: alice,
                api: api
            )
            #expect(results.map { $0.rejection?.code } == Array(repeating: "INVALID_CHANGE", count: 7))
            #expect(results.allSatisfy { $0.changeID == nil }, "a change that breaks the limits spends no change ID")
            #expect(try await Self.fuelCheck(api).version == 1)
            let token = try await api.signIn("bob", device: "device-3")
            for (key, status) in [
                ("", HTTPResponse.Status.badRequest), ("AAAA", .badRequest),
                (String(repeating: "A", count: 87), .unprocessableContent),
            ] {
                let reply = try await api.send(
                    .put,
                    "/apps/checks/devices/device-3",
                    token: token,
                    json: #"{"deviceName": "x", "platform": "linux", "appVersion": "1.0", "changeKey": "\#(key)"}"#
                )
                #expect(reply.status == status, "\(key)")
            }
        }
    }

    @Test(
        "the app's rules reach devices in the settings, and an admin update replaces or removes a set's rules",
        arguments: Backend.available
    )
    func rulesInTheSettings(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, _) = try await Self.prepared(api)
            let settings = try await api.send(.get, "/apps/checks/settings", token: alice.token)
                .decode(Components.Schemas.SettingsExchange.self).mobileservices.settingsExchange
            let checks = settings.dataSettings?.entitySets?.additionalProperties["checks"]
            #expect(checks?.writableFields == ["status", "reading", "note"])
            #expect(checks?.allowsCreation == false)
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json:
                    #"{"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": [], "allowsCreation": false}}}}}"#
            ).expect(.ok)
            let results = try await Self.upload([alice.change(sequence: 1, ["status": "done"])], by: alice, api: api)
            #expect(results.first?.rejection?.code == "ENTITY_SET_NOT_WRITABLE")
            for bad in [#"["1st"]"#, #"["a", "a"]"#, #"["bad name"]"#] {
                let reply = try await api.admin(
                    .patch,
                    "/admin/apps/checks",
                    json:
                        #"{"settings": {"dataSettings": {"entitySets": {"checks": {"writableFields": \#(bad), "allowsCreation": true}}}}}"#
                )
                #expect(reply.status == .badRequest, "\(bad)")
            }
            let many = (0...100).map { #""s\#($0)": {"writableFields": [], "allowsCreation": false}"# }
            let tooMany = try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"dataSettings": {"entitySets": {\#(many.joined(separator: ", "))}}}}"#
            )
            #expect(tooMany.status == .badRequest, "101 sets, even to remove them")
        }
    }

    static func sealingKey(_ api: API, token: String) async throws -> SealingPublicKey {
        let settings = try await api.send(.get, "/apps/checks/settings", token: token)
            .decode(Components.Schemas.SettingsExchange.self).mobileservices.settingsExchange
        return try SealingPublicKey(
            x963Representation: try #require(Data(base64URLEncoded: settings.changeSealingKey))
        )
    }

    static func uploadSealed(
        _ sealed: [Data],
        by carrier: Author,
        api: API
    ) async throws -> [Components.Schemas.ChangeResult] {
        let reply = try await api.send(.post, "/apps/checks/changes/sealed", token: carrier.token, json: body(sealed))
        try reply.expect(.ok)
        return try reply.decode(Components.Schemas.ChangeUploadResult.self).results
    }

    @Test(
        "sealed changes are opened by the server alone; one that does not open or check is refused alone",
        arguments: Backend.available
    )
    func sealedChanges(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, bob) = try await Self.prepared(api)
            let key = try await Self.sealingKey(api, token: bob.token)
            let first = alice.change(sequence: 1, ["status": "done"])
            let badEntity = alice.change(sequence: 2, entity: "bad id", ["status": "x"])
            let forged = bob.key.sign(alice.change(sequence: 3, ["note": "forged"]).change)
            let sealed = [
                try ChangeSeal.seal(first, to: key),
                Data(repeating: 7, count: 200),
                try ChangeSeal.seal(alice.change(sequence: 4, ["note": "x"]), to: SealingPrivateKey().publicKey),
                try ChangeSeal.seal(badEntity, to: key),
                try ChangeSeal.seal(forged, to: key),
                try ChangeSeal.seal(alice.change(sequence: 5, ["reading": "8.1 bar"]), to: key),
            ]
            let results = try await Self.uploadSealed(sealed, by: bob, api: api)
            #expect(
                results.map { $0.rejection?.code }
                    == [
                        nil, "SEALED_CHANGE_UNREADABLE", "SEALED_CHANGE_UNREADABLE", "INVALID_CHANGE",
                        "SIGNATURE_INVALID", nil,
                    ]
            )
            #expect(results[0].changeID == first.change.id.uuidString.lowercased())
            #expect(results[1].changeID == nil)
            let again = try await Self.uploadSealed([try ChangeSeal.seal(first, to: key)], by: alice, api: api)
            #expect(again.first?.outcome == .duplicate, "a change sealed again is still the same change")
            let check = try await Self.fuelCheck(api)
            #expect(check.version == 3)
            #expect(check.updatedBy == "alice")
            for bad in [#"{"sealed": []}"#, #"{"sealed": ["not base64url!"]}"#, #"{"sealed": ["AAAA"]}"#] {
                let reply = try await api.send(.post, "/apps/checks/changes/sealed", token: bob.token, json: bad)
                #expect(reply.status == .badRequest, "\(bad)")
            }
        }
    }

    @Test(
        "changes sealed in runs open with one key agreement per run, beside single ones; an altered one is refused alone",
        arguments: Backend.available
    )
    func sealedRuns(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let (alice, bob) = try await Self.prepared(api)
            let key = try await Self.sealingKey(api, token: bob.token)
            let sealer = ChangeSealer()
            // Each based on the version the one before it leaves (the single one comes between).
            let run = try [(1, 1), (2, 2), (3, 4)].map { sequence, base in
                try sealer.seal(
                    alice.change(sequence: Int64(sequence), base: Int64(base), ["reading": "\(sequence) bar"]),
                    registrationID: alice.registrationID,
                    to: key
                )
            }
            #expect(Set(run.map { $0.prefix(66) }).count == 1, "one encapsulated key for the run")
            var alteredKey = try sealer.seal(
                alice.change(sequence: 4, ["note": "x"]),
                registrationID: alice.registrationID,
                to: key
            )
            alteredKey[alteredKey.startIndex + 10] ^= 0x01
            var alteredText = try sealer.seal(
                alice.change(sequence: 5, ["note": "y"]),
                registrationID: alice.registrationID,
                to: key
            )
            alteredText[alteredText.endIndex - 20] ^= 0x01
            let single = try ChangeSeal.seal(alice.change(sequence: 6, base: 3, ["status": "done"]), to: key)
            let results = try await Self.uploadSealed(
                [run[0], alteredKey, run[1], alteredText, single, run[2]],
                by: bob,
                api: api
            )
            #expect(
                results.map { $0.rejection?.code }
                    == [nil, "SEALED_CHANGE_UNREADABLE", nil, "SEALED_CHANGE_UNREADABLE", nil, nil]
            )
            let check = try await Self.fuelCheck(api)
            #expect(check.version == 5)
            #expect(check.fields.additionalProperties["reading"] == "3 bar")
            #expect(check.fields.additionalProperties["status"] == "done")
            #expect(check.fields.additionalProperties["note"] == nil)
            let again = try await Self.uploadSealed([run[1]], by: alice, api: api)
            #expect(again.first?.outcome == .duplicate)
        }
    }

    @Test("the sealing key is kept sealed in the database, and the same after a restart")
    func sealingKeyKept() async throws {
        let fixture = try await ServerFixture()
        var before: SealingPublicKey?
        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            before = try await Self.sealingKey(api, token: token)
            let stored = try #require(try await fixture.server.storage.secret(named: "change-sealing-key"))
            #expect(stored.count == 60, "AES-GCM: nonce, 32 bytes, tag")
        }
        let restarted = try await MobileServicesServerRestart.restart(fixture)
        try await TestServer(server: restarted, adminToken: fixture.adminToken).run { running in
            let api = API(running: running, fixture: fixture)
            let token = try await api.signIn("alice")
            #expect(try await Self.sealingKey(api, token: token) == before)
        }
    }
}

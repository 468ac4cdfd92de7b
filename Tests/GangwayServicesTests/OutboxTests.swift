import Crypto
import Foundation
import GRDB
import GangwayProtocol
import GangwayServerStorage
import GangwayStore
import GangwaySystem
import GangwayTesting
import Testing

@testable import GangwayServices

@Suite("The device's outbox: durable, sealed, and never blocked by one refusal")
struct OutboxTests {
    let temporary: TemporaryDirectory
    let server = SealingPrivateKey()
    let alice: OutboxAuthor
    let aliceAnswers = SealingPrivateKey()
    let bob: OutboxAuthor
    let bobAnswers = SealingPrivateKey()

    init() throws {
        temporary = try TemporaryDirectory(prefix: "gangway-outbox-test")
        alice = OutboxAuthor(
            name: "alice",
            registrationID: "reg-alice",
            signingKey: ChangeSigningKey(),
            answerKey: aliceAnswers.publicKey
        )
        bob = OutboxAuthor(
            name: "bob",
            registrationID: "reg-bob",
            signingKey: ChangeSigningKey(),
            answerKey: bobAnswers.publicKey
        )
    }

    var directory: URL { temporary.appending("device") }

    /// The device's key store, shared by every open of the outbox (as the app's is).
    let deviceKeys = InMemoryDeviceKeyStore()

    func outbox() throws -> Outbox { try Outbox(directory: directory, deviceKeys: deviceKeys) }

    @discardableResult
    func record(
        _ author: OutboxAuthor,
        entity: String = "A320-tyres",
        _ fields: [String: String],
        in outbox: Outbox
    )
        throws -> SignedChange
    {
        try outbox.record(
            by: author,
            entitySet: "checks",
            entityID: entity,
            baseVersion: 1,
            fields: fields,
            madeAt: Date(timeIntervalSince1970: 1_800_000_000),
            sealingTo: server.publicKey
        )
    }

    /// Settles `change` as the server refuses a field devices may not write.
    func refuse(_ change: PendingChange, in outbox: Outbox) throws {
        let refusal = ChangeRejection(.fieldNotWritable, "Devices may not write aircraft in checks.")
        try outbox.settle([(change, ChangeAnswer(result: ChangeResult(changeID: change.changeID, rejected: refusal)))])
    }

    @Test func aRecordedChangeIsSignedSealedAndThereAfterAReopen() throws {
        defer { temporary.remove() }
        let first = try record(alice, ["status": "done"], in: try outbox())
        // A new outbox over the same file is the app after a kill.
        let reopened = try outbox()
        let second = try record(alice, entity: "A320-fuel", ["reading": "8.2 bar"], in: reopened)
        #expect([first.change.sequence, second.change.sequence] == [1, 2], "sequences survive the reopen")
        let ready = try outbox().ready()
        #expect(ready.map(\.changeID) == [first.change.id, second.change.id])
        let opened = try ChangeSeal.open(try #require(ready.first).sealed, with: server)
        #expect(opened == first)
        #expect(opened.isSigned(by: alice.signingKey.verifyingKey))
        #expect(try outbox().count(registrationID: "reg-alice") == 2)
    }

    @Test("no value, author or entity of a pending change or an answer is in any file")
    func noValueOfAPendingChangeOrAnAnswerIsInAnyFile() throws {
        defer { temporary.remove() }
        let box = try outbox()
        let named = OutboxAuthor(
            name: "Alice-Martin-Author",
            registrationID: alice.registrationID,
            signingKey: alice.signingKey,
            answerKey: alice.answerKey
        )
        try box.record(
            by: named,
            entitySet: "Hangar-Checks-Set",
            entityID: "F-GKXA-Entity",
            baseVersion: 1,
            fields: ["note": "Hydraulic-Leak-Seen"],
            madeAt: Date(timeIntervalSince1970: 1_800_000_000),
            sealingTo: server.publicKey
        )
        let pending = try #require(try box.ready().first)
        let answer = ChangeAnswer(
            result: ChangeResult(
                changeID: pending.changeID,
                outcome: .conflict,
                version: 3,
                conflicts: [
                    FieldConflict(field: "note", serverValue: "Server-Side-Note", deviceValue: "Hydraulic-Leak-Seen")
                ]
            ),
            entity: EntityState(fields: ["note": "Server-Side-Note"], version: 3)
        )
        try record(alice, ["reading": "Reading-Nine-Bar"], in: box)
        try box.settle([(pending, answer)])
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            bytes.append(try Data(contentsOf: directory.appendingPathComponent(name)))
            #expect(
                PrivateFiles.mode(of: directory.appendingPathComponent(name).path).map { $0 & 0o077 } == 0,
                "\(name)"
            )
        }
        #expect(PrivateFiles.mode(of: directory.path).map { $0 & 0o077 } == 0)
        #expect(!bytes.isEmpty)
        for value in [
            "Hydraulic-Leak-Seen", "Server-Side-Note", "Reading-Nine-Bar", "Alice-Martin-Author", "Hangar-Checks-Set",
            "F-GKXA-Entity",
        ] {
            #expect(bytes.range(of: Data(value.utf8)) == nil, "\(value) is readable in the files")
        }
    }

    @Test func settlingKeepsTheAnswerForItsAuthorAloneAndRemovesTheChangeOnce() throws {
        defer { temporary.remove() }
        let box = try outbox()
        let change = try record(alice, ["status": "done"], in: box)
        let pending = try #require(try box.ready().first)
        let answer = ChangeAnswer(result: ChangeResult(changeID: change.change.id, outcome: .applied, version: 2))
        try box.settle([(pending, answer)])
        #expect(try box.ready().isEmpty)
        // Settling again (a second answer to a change already settled) changes nothing.
        try box.settle([(pending, ChangeAnswer(result: ChangeResult(changeID: change.change.id, outcome: .duplicate)))])
        let answers = try box.answers(registrationID: "reg-alice", openingWith: aliceAnswers)
        #expect(answers == [change.change.id: answer])
        #expect(throws: OutboxError(.corrupt, "")) {
            try box.answers(registrationID: "reg-alice", openingWith: bobAnswers)
        }
        try box.forgetAnswers([change.change.id])
        #expect(try box.answers(registrationID: "reg-alice", openingWith: aliceAnswers).isEmpty)
    }

    @Test func answersAreRecordedByTheInjectedWallClock() throws {
        defer { temporary.remove() }
        let box = try Outbox(
            directory: directory,
            deviceKeys: deviceKeys,
            now: { Date(timeIntervalSince1970: 2_000_000_000) }
        )
        try record(alice, ["status": "done"], in: box)
        let pending = try #require(try box.ready().first)
        try box.settle([
            (pending, ChangeAnswer(result: ChangeResult(changeID: pending.changeID, outcome: .applied, version: 2)))
        ])
        let answeredAt = try box.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT answered_at FROM answer")
        }
        #expect(answeredAt == 2_000_000_000)
    }

    @Test func aSettlesAnswersShareOneKeyPerAuthorEachBoundToItsChange() throws {
        defer { temporary.remove() }
        let box = try outbox()
        var made: [SignedChange] = []
        for index in 0..<6 {
            made.append(try record(index < 4 ? alice : bob, entity: "check-\(index)", ["status": "done"], in: box))
        }
        let ready = try box.ready()
        #expect(ready.count == 6)
        let answered = ready.map { pending in
            (pending, ChangeAnswer(result: ChangeResult(changeID: pending.changeID, outcome: .applied, version: 2)))
        }
        try box.settle(Array(answered.prefix(3)))
        try box.settle(Array(answered.dropFirst(3)))
        // One key per author and settle: alice's answers came in two settles.
        let keys = try box.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT registration_id FROM answer_key ORDER BY id").map { $0[0] as String }
        }
        #expect(keys == ["reg-alice", "reg-alice", "reg-bob"])
        let alices = try box.answers(registrationID: "reg-alice", openingWith: aliceAnswers)
        #expect(Set(alices.keys) == Set(made.prefix(4).map(\.change.id)))
        #expect(alices.values.allSatisfy { $0.outcome == .applied && $0.result.version == 2 })
        #expect(try box.answers(registrationID: "reg-bob", openingWith: bobAnswers).count == 2)

        // An answer moved to another change's row no longer opens: each is bound to its
        // change ID.
        try box.pool.write { db in
            let ids = try String.fetchAll(db, sql: "SELECT change_id FROM answer WHERE registration_id = 'reg-alice'")
            try db.execute(
                sql: "UPDATE answer SET sealed = (SELECT sealed FROM answer WHERE change_id = ?) WHERE change_id = ?",
                arguments: [ids[0], ids[1]]
            )
        }
        #expect(throws: OutboxError(.corrupt, "")) {
            try box.answers(registrationID: "reg-alice", openingWith: aliceAnswers)
        }

        // Keys go with the last answer that needs them.
        try box.forgetAnswers(made.prefix(4).map(\.change.id))
        let left = try box.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT registration_id FROM answer_key").map { $0[0] as String }
        }
        #expect(left == ["reg-bob"])
    }

    @Test func anAnswerKeptBeforeAnswersSharedAKeyStillOpens() throws {
        defer { temporary.remove() }
        let box = try outbox()
        let change = try record(alice, ["status": "done"], in: box)
        let answer = ChangeAnswer(result: ChangeResult(changeID: change.change.id, outcome: .applied, version: 2))
        let sealed = try HPKESeal.seal(
            try ChangeSeal.encoder.encode(answer),
            to: aliceAnswers.publicKey,
            info: Outbox.answerInfo
        )
        try box.pool.write { db in
            try db.execute(
                sql: "INSERT INTO answer (change_id, registration_id, sealed, answered_at) VALUES (?, ?, ?, 0)",
                arguments: [change.change.id.uuidString.lowercased(), "reg-alice", sealed]
            )
        }
        #expect(try box.answers(registrationID: "reg-alice", openingWith: aliceAnswers) == [change.change.id: answer])
    }

    @Test func aRefusalHoldsOnlyTheAuthorsLaterChangesToThatEntity() throws {
        defer { temporary.remove() }
        let box = try outbox()
        let refused = try record(alice, ["aircraft": "D-AIZZ"], in: box)
        let behind = try record(alice, ["status": "done"], in: box)
        let otherEntity = try record(alice, entity: "A321-fuel", ["status": "done"], in: box)
        let bobs = try record(bob, ["status": "open"], in: box)
        let first = try #require(try box.ready().first)
        #expect(first.changeID == refused.change.id)
        try refuse(first, in: box)
        #expect(try box.ready().map(\.changeID) == [otherEntity.change.id, bobs.change.id])
        #expect(try box.readyCount() == 2, "a held change is not ready")
        #expect(
            try box.pending(registrationID: "reg-alice").map(\.changeID) == [behind.change.id, otherEntity.change.id]
        )
        try box.release(registrationID: "reg-alice", entitySet: "checks", entityID: "A320-tyres")
        #expect(try box.ready().map(\.changeID) == [behind.change.id, otherEntity.change.id, bobs.change.id])
        try box.discard([behind.change.id])
        #expect(try box.ready().map(\.changeID) == [otherEntity.change.id, bobs.change.id])
    }

    @Test("a lost tag key unfiles the changes: each goes alone, in order, and nothing made later overtakes them")
    func aLostTagKeyUnfilesTheChanges() throws {
        defer { temporary.remove() }
        let box = try outbox()
        let a1 = try record(alice, ["status": "done"], in: box)
        let a2 = try record(alice, ["note": "ok"], in: box)
        let a3 = try record(alice, entity: "A320-fuel", ["status": "done"], in: box)
        let b1 = try record(bob, ["status": "open"], in: box)
        #expect(box.unfiled == 0)

        try deviceKeys.delete(Outbox.tagKeyName)
        let lost = try outbox()
        #expect(lost.unfiled == 4)
        #expect(try lost.unfiledCount(registrationID: "reg-alice") == 3)
        let a4 = try record(alice, entity: "A320-fuel", ["reading": "8.1 bar"], in: lost)
        #expect(try lost.ready().map(\.changeID) == [a1.change.id, b1.change.id])
        #expect(try outbox().unfiled == 0, "the new key is the one on record now")

        try lost.settle(
            try lost.ready().map { ($0, ChangeAnswer(result: ChangeResult(changeID: $0.changeID, outcome: .applied))) }
        )
        #expect(try lost.ready().map(\.changeID) == [a2.change.id])
        try lost.refile(
            registrationID: "reg-alice",
            changes: [a2.change.id: ("checks", "A320-tyres"), a3.change.id: ("checks", "A320-fuel")],
            heldBack: []
        )
        #expect(try lost.unfiledCount(registrationID: "reg-alice") == 0)
        #expect(try lost.ready().map(\.changeID) == [a2.change.id, a3.change.id], "a4 waits behind a3, its entity's")
        _ = a4
    }

    @Test("a refusal of an unfiled change holds its author's changes until their record files them again")
    func aRefusalOfAnUnfiledChangeHoldsTheAuthor() throws {
        defer { temporary.remove() }
        let box = try outbox()
        let refused = try record(alice, ["aircraft": "D-AIZZ"], in: box)
        let behind = try record(alice, ["status": "done"], in: box)
        let other = try record(alice, entity: "A320-fuel", ["status": "done"], in: box)
        let bobs = try record(bob, ["status": "open"], in: box)
        try deviceKeys.delete(Outbox.tagKeyName)
        let lost = try outbox()
        let first = try #require(try lost.ready().first)
        #expect(first.changeID == refused.change.id)
        try refuse(first, in: lost)
        #expect(try lost.ready().map(\.changeID) == [bobs.change.id], "the entity is unknown: all of Alice's wait")
        // A change the record lacks stays unfiled; the others are filed, the refused entity held.
        #expect(
            try lost.refile(
                registrationID: "reg-alice",
                changes: [behind.change.id: ("checks", "A320-tyres")],
                heldBack: [("checks", "A320-tyres")]
            ) == 1
        )
        #expect(try lost.unfiledCount(registrationID: "reg-alice") == 1)
        #expect(
            try lost.ready().map(\.changeID) == [bobs.change.id],
            "still unfiled, its entity unknown: it goes only as Alice's oldest"
        )
        #expect(
            try lost.refile(
                registrationID: "reg-alice",
                changes: [other.change.id: ("checks", "A320-fuel")],
                heldBack: [("checks", "A320-tyres")]
            ) == 1
        )
        try lost.release(registrationID: "reg-alice", entitySet: "checks", entityID: "A320-tyres")
        #expect(try lost.ready().map(\.changeID) == [behind.change.id, other.change.id, bobs.change.id])
        #expect(try lost.refile(registrationID: "reg-bob", changes: [:], heldBack: []) == 0)
    }

    @Test("a hold an unfiled refusal widened is lifted by the author's record, even with nothing left unfiled")
    func aWidenedHoldIsLiftedByTheAuthorsRecord() throws {
        defer { temporary.remove() }
        let box = try outbox()
        let refused = try record(alice, ["aircraft": "D-AIZZ"], in: box)
        try deviceKeys.delete(Outbox.tagKeyName)
        let lost = try outbox()
        // Made after the loss, under the new key, to another entity.
        let fuel = try record(alice, entity: "A320-fuel", ["status": "done"], in: lost)
        let first = try #require(try lost.ready().first)
        #expect(try lost.ready().map(\.changeID) == [refused.change.id], "the fuel waits behind the unfiled one")
        try refuse(first, in: lost)
        #expect(try lost.ready().isEmpty)
        #expect(try lost.unfiledCount(registrationID: "reg-alice") == 0)
        #expect(try lost.needsRefiling(registrationID: "reg-alice"))
        try lost.refile(
            registrationID: "reg-alice",
            changes: [fuel.change.id: ("checks", "A320-fuel")],
            heldBack: [("checks", "A320-tyres")]
        )
        #expect(try lost.ready().map(\.changeID) == [fuel.change.id], "another entity's change goes")
        #expect(try !lost.needsRefiling(registrationID: "reg-alice"))
    }

    @Test func readyTakesTheOldestOfTheRegistrationsAsked() throws {
        defer { temporary.remove() }
        let box = try outbox()
        var alices: [UUID] = []
        for index in 0..<5 {
            alices.append(try record(alice, entity: "check-\(index)", ["note": "\(index)"], in: box).change.id)
            try record(bob, entity: "check-\(index)", ["note": "\(index)"], in: box)
        }
        #expect(try box.ready(limit: 3, registrations: ["reg-alice"]).map(\.changeID) == Array(alices.prefix(3)))
        #expect(try box.ready(limit: 100).count == 10)
        #expect(try box.ready(registrations: []).isEmpty)
        #expect(try box.readyCount() == 10)
        #expect(try box.readyCount(registrations: ["reg-alice"]) == 5)
        #expect(try box.readyCount(registrations: []) == 0)
    }

    @Test func ofAnAuthorsChangesToOneEntityOnlyTheOldestIsReadyUntilTheServerAnswersIt() throws {
        defer { temporary.remove() }
        let box = try outbox()
        let first = try record(alice, ["status": "done"], in: box)
        let second = try record(alice, ["note": "ok"], in: box)
        let other = try record(alice, entity: "A320-fuel", ["status": "done"], in: box)
        let bobs = try record(bob, ["status": "open"], in: box)
        #expect(try box.ready().map(\.changeID) == [first.change.id, other.change.id, bobs.change.id])
        let sent = try box.ready()
        try box.settle(sent.map { ($0, ChangeAnswer(result: ChangeResult(changeID: $0.changeID, outcome: .applied))) })
        #expect(try box.ready().map(\.changeID) == [second.change.id])
    }

    @Test("an outbox kept before entities were tagged: its changes are tagged where they stand, and no name stays")
    func anOutboxKeptBeforeTagsIsTagged() throws {
        defer { temporary.remove() }
        try PrivateFiles.makeDirectory(directory)
        let file = directory.appendingPathComponent(Outbox.fileName)
        do {
            let pool = try DatabasePool(path: file.path)
            try Outbox.migrator(tagKey: SymmetricKey(size: .bits256)).migrate(pool, upTo: "v2")
            try pool.write { db in
                try db.execute(
                    sql: "INSERT INTO author (registration_id, author, next_sequence, answer_key) VALUES (?, ?, 3, ?)",
                    arguments: ["reg-alice", "Alice-Old-Name", alice.answerKey.x963Representation]
                )
                for (sequence, held) in [(1, 1), (2, 0)] {
                    try db.execute(
                        sql: """
                            INSERT INTO pending (change_id, registration_id, author, entity_set, entity_id, sequence,
                                sealed, held, recorded_at)
                            VALUES (?, 'reg-alice', 'Alice-Old-Name', 'Old-Set-Name', 'Old-Entity-ID', ?, ?, ?, 0)
                            """,
                        arguments: [UUID().lowercasedText, sequence, Data("sealed".utf8), held]
                    )
                }
                // Another author's, enough to fill pages the tagging frees.
                for index in 0..<400 {
                    try db.execute(
                        sql: """
                            INSERT INTO pending (change_id, registration_id, author, entity_set, entity_id, sequence,
                                sealed, held, recorded_at)
                            VALUES (?, 'reg-bob', 'Bob-Old-Name', 'Old-Set-Name', ?, ?, ?, 0, 0)
                            """,
                        arguments: [UUID().lowercasedText, "Other-Entity-\(index)", index + 1, Data("sealed".utf8)]
                    )
                }
            }
        }
        let box = try outbox()
        let pending = try box.pending(registrationID: "reg-alice")
        let tag = box.entityTag(entitySet: "Old-Set-Name", entityID: "Old-Entity-ID")
        #expect(pending.map(\.sequence) == [1, 2])
        #expect(pending.map(\.entityTag) == [tag, tag])
        #expect(try box.ready(registrations: ["reg-alice"]).isEmpty, "the first is held, and holds the second back")
        try box.release(registrationID: "reg-alice", entitySet: "Old-Set-Name", entityID: "Old-Entity-ID")
        #expect(try box.ready(registrations: ["reg-alice"]).map(\.sequence) == [1])
        let next = try record(alice, ["status": "done"], in: box)
        #expect(next.change.sequence == 3, "the sequence goes on")
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            bytes.append(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        #expect(try box.count(registrationID: "reg-bob") == 400)
        for name in ["Alice-Old-Name", "Bob-Old-Name", "Old-Set-Name", "Old-Entity-ID", "Other-Entity-"] {
            #expect(bytes.range(of: Data(name.utf8)) == nil, "\(name) is readable in the files")
        }
    }
}

import Foundation
import Testing

@testable import GangwayProtocol

@Suite("Changes merge field by field against their base version")
struct FieldMergeTests {
    func change(base: Int64?, _ fields: [String: String]) -> Change {
        Change(
            registrationID: "reg-alice",
            author: "alice",
            sequence: 1,
            entitySet: "checks",
            entityID: "A320-tyres",
            baseVersion: base,
            fields: fields,
            madeAt: Date(timeIntervalSince1970: 1_800_000_000)
        )
    }

    /// Version 3: `status` set at 1, `reading` at 3 (by someone else after the author's
    /// base 2), `note` at 2.
    let current = EntityState(
        fields: ["status": "open", "reading": "7.9 bar", "note": "ok"],
        version: 3,
        fieldVersions: ["status": 1, "reading": 3, "note": 2]
    )

    @Test func fieldsOnlyTheAuthorChangedAreTaken() throws {
        let outcome = try FieldMerge.merge(change(base: 2, ["status": "done", "note": "checked"]), into: current)
        #expect(outcome.changedFields == ["note", "status"])
        #expect(outcome.conflicts.isEmpty)
        #expect(outcome.entity.fields == ["status": "done", "reading": "7.9 bar", "note": "checked"])
        #expect(outcome.entity.version == 4)
        #expect(outcome.entity.fieldVersions == ["status": 4, "reading": 3, "note": 4])
    }

    @Test func aFieldBothChangedKeepsTheServersValueAndBecomesAConflict() throws {
        let outcome = try FieldMerge.merge(change(base: 2, ["status": "done", "reading": "8.2 bar"]), into: current)
        #expect(outcome.changedFields == ["status"])
        #expect(outcome.conflicts == [FieldConflict(field: "reading", serverValue: "7.9 bar", deviceValue: "8.2 bar")])
        #expect(outcome.entity.fields["reading"] == "7.9 bar", "no last write wins over someone else's change")
        #expect(outcome.entity.fields["status"] == "done")
        #expect(outcome.entity.version == 4)
    }

    @Test func aConflictAloneChangesNothing() throws {
        let outcome = try FieldMerge.merge(change(base: 2, ["reading": "8.2 bar"]), into: current)
        #expect(!outcome.changedEntity)
        #expect(outcome.entity == current)
        #expect(outcome.conflicts.count == 1)
    }

    @Test func theSameValueOnBothSidesIsNoConflictAndNoNewVersion() throws {
        let outcome = try FieldMerge.merge(change(base: 1, ["reading": "7.9 bar"]), into: current)
        #expect(outcome.conflicts.isEmpty)
        #expect(!outcome.changedEntity)
        #expect(outcome.entity.version == 3)
    }

    @Test func aChangeBasedOnTheCurrentVersionTakesEveryField() throws {
        let outcome = try FieldMerge.merge(change(base: 3, ["reading": "8.2 bar", "status": "done"]), into: current)
        #expect(outcome.conflicts.isEmpty)
        #expect(outcome.changedFields == ["reading", "status"])
    }

    @Test func creatingTakesVersionOneAndCreatingAnExistingEntityConflictsOnEveryDifferingField() throws {
        let created = try FieldMerge.merge(change(base: nil, ["status": "open", "note": "new"]), into: nil)
        #expect(
            created.entity
                == EntityState(
                    fields: ["status": "open", "note": "new"],
                    version: 1,
                    fieldVersions: ["status": 1, "note": 1]
                )
        )
        let again = try FieldMerge.merge(
            change(base: nil, ["status": "open", "note": "other", "extra": "x"]),
            into: current
        )
        #expect(again.changedFields == ["extra"], "a field the server never had is the author's alone")
        #expect(again.conflicts.map(\.field) == ["note"])
    }

    @Test func editingAnEntityTheServerDoesNotHaveIsRejected() {
        #expect(throws: ChangeRejection(.entityNotFound, "")) {
            try FieldMerge.merge(change(base: 2, ["status": "done"]), into: nil)
        }
    }

    @Test func entitiesStoredBeforeFieldVersionsCountEveryFieldAsChangedAtTheirVersion() throws {
        let legacy = EntityState(fields: ["status": "open"], version: 5)
        #expect(legacy.versionOfField("status") == 5)
        #expect(legacy.versionOfField("never") == 0)
        #expect(try FieldMerge.merge(change(base: 4, ["status": "done"]), into: legacy).conflicts.count == 1)
        #expect(try FieldMerge.merge(change(base: 5, ["status": "done"]), into: legacy).changedFields == ["status"])
    }
}

@Suite("The set's rules and the shared limits decide which changes are taken")
struct EntitySetRulesTests {
    let rules = EntitySetRules(writableFields: ["status", "reading", "note"])

    func change(base: Int64? = 1, sequence: Int64 = 1, _ fields: [String: String]) -> Change {
        Change(
            registrationID: "reg-alice",
            author: "alice",
            sequence: sequence,
            entitySet: "checks",
            entityID: "A320-tyres",
            baseVersion: base,
            fields: fields,
            madeAt: Date(timeIntervalSince1970: 1_800_000_000)
        )
    }

    @Test func writableFieldsPass() throws {
        try rules.check(change(["status": "done", "note": ""]))
    }

    @Test func aFieldTheSetDoesNotAllowIsRejectedByName() {
        do {
            try rules.check(change(["status": "done", "aircraft": "D-AIZZ"]))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .fieldNotWritable)
            #expect(error.message.contains("aircraft"))
            #expect(error.fields == ["aircraft"], "named apart too, for a text in another language")
            #expect(!error.message.contains("D-AIZZ"), "no value in the message")
        }
    }

    @Test func creatingNeedsTheSetToAllowIt() throws {
        #expect(throws: ChangeRejection(.creationNotAllowed, "")) {
            try rules.check(change(base: nil, ["status": "open"]))
        }
        try EntitySetRules(writableFields: ["status"], allowsCreation: true).check(
            change(base: nil, ["status": "open"])
        )
    }

    @Test(arguments: [
        ["": "x"], ["1st": "x"], ["st atus": "x"], ["status": String(repeating: "a", count: 1025)],
        ["status": "line\nbreak"], ["status": "evil\u{202E}gpj"], [:],
    ])
    func aChangeOutsideTheLimitsIsInvalid(fields: [String: String]) {
        #expect(throws: ChangeRejection(.invalidChange, "")) {
            try EntitySetRules(writableFields: Set(fields.keys)).check(change(fields))
        }
    }

    @Test(arguments: ["", " ", "-leading", ".x", "bad id", "ünïcode", String(repeating: "a", count: 65)])
    func anEntityIDOutsideTheDocumentsRuleIsInvalid(id: String) {
        var bad = change(["status": "x"])
        bad.entityID = id
        #expect(throws: ChangeRejection(.invalidChange, "")) { try rules.check(bad) }
        bad.entityID = "F-GKXA.fuel_2"
        bad.entitySet = id
        #expect(throws: ChangeRejection(.invalidChange, "")) { try rules.check(bad) }
    }

    @Test func anEntityIDOfTheDocumentsRulePasses() throws {
        var good = change(["status": "x"])
        good.entityID = "9F-GKXA.fuel_2" + String(repeating: "a", count: 50)
        try rules.check(good)
    }

    @Test func sequenceAndBaseVersionStartAtOne() {
        #expect(throws: ChangeRejection(.invalidChange, "")) { try rules.check(change(sequence: 0, ["status": "x"])) }
        #expect(throws: ChangeRejection(.invalidChange, "")) { try rules.check(change(base: 0, ["status": "x"])) }
    }

    @Test func aSetOfSixtyFourFieldsIsTheMost() throws {
        let names = (0..<65).map { "f\($0)" }
        let wide = EntitySetRules(writableFields: Set(names))
        try wide.check(change(Dictionary(uniqueKeysWithValues: names.prefix(64).map { ($0, "v") })))
        #expect(throws: ChangeRejection(.invalidChange, "")) {
            try wide.check(change(Dictionary(uniqueKeysWithValues: names.map { ($0, "v") })))
        }
    }
}

import Foundation
import Testing

@testable import GangwayProtocol

@Suite("A plain result is written without JSONEncoder and reads back equal; any other goes through it")
struct ChangeResultJSONTests {
    static let id = UUID()
    static let plain: [ChangeResult] = [
        ChangeResult(changeID: id, outcome: .applied, version: 2),
        ChangeResult(changeID: id, outcome: .applied, version: Int64.max),
        ChangeResult(changeID: id, outcome: .applied),
        ChangeResult(changeID: id, outcome: .applied, version: 7).asDuplicate,
        ChangeResult(changeID: id, outcome: .applied, version: 7).asDuplicate.asDuplicate,
    ]

    @Test func plainResultsAndAnswersReadBackEqual() throws {
        for result in Self.plain {
            let json = try #require(result.plainJSON)
            #expect(try JSONDecoder().decode(ChangeResult.self, from: json) == result)
            let answer = ChangeAnswer(result: result)
            let answerJSON = try #require(answer.plainJSON)
            #expect(try ChangeSeal.decoder.decode(ChangeAnswer.self, from: answerJSON) == answer)
            #expect(answer.outcome == (result.original ?? result.outcome))
        }
    }

    @Test func aResultWithConflictsOrARejectionOrAnAnswerWithAnEntityIsNotPlain() {
        let conflict = ChangeResult(
            changeID: Self.id,
            outcome: .conflict,
            version: 3,
            conflicts: [FieldConflict(field: "note", serverValue: nil, deviceValue: "x")]
        )
        let rejected = ChangeResult(
            changeID: Self.id,
            rejected: ChangeRejection(.fieldNotWritable, "Devices may not write aircraft.")
        )
        for result in [conflict, rejected, rejected.asDuplicate, conflict.asDuplicate] {
            #expect(result.plainJSON == nil)
            #expect(ChangeAnswer(result: result).plainJSON == nil)
        }
        let entity = EntityState(fields: ["status": "done"], version: 2)
        #expect(ChangeAnswer(result: Self.plain[0], entity: entity).plainJSON == nil)
    }

    @Test func aRejectionKeepsTheFieldsItNamesAndOneKeptBeforeThemReadsWithNone() throws {
        let named = ChangeRejection(.fieldNotWritable, "Devices may not write aircraft.", fields: ["aircraft"])
        let json = try JSONEncoder().encode(named)
        #expect(try JSONDecoder().decode(ChangeRejection.self, from: json).fields == ["aircraft"])
        let earlier = Data(#"{"code":"FIELD_NOT_WRITABLE","message":"Devices may not write aircraft."}"#.utf8)
        let read = try JSONDecoder().decode(ChangeRejection.self, from: earlier)
        #expect(read.code == .fieldNotWritable)
        #expect(read.fields.isEmpty)
        let unnamed = try JSONEncoder().encode(ChangeRejection(.keyRevoked, "The author's registration was wiped."))
        #expect(!String(decoding: unnamed, as: UTF8.self).contains("fields"), "written as before when it names none")
    }
}

import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices
import GangwaySystem
import Testing

@testable import GangwayCommands

@Suite("gangway admin data changes and conflicts, as printed")
struct AdminChangesFormatTests {
    static let change = ManagedChange(
        changeID: UUID(uuidString: "6F1C2E0A-8B3D-4C5E-9F70-112233445566")!,
        entitySet: "checks",
        entityID: "A320-tyres",
        author: "alice",
        carrier: "bob",
        registrationID: "reg-1",
        result: ChangeResult(
            changeID: UUID(uuidString: "6F1C2E0A-8B3D-4C5E-9F70-112233445566")!,
            outcome: .conflict,
            version: 3,
            conflicts: [FieldConflict(field: "reading", serverValue: "8.0 bar", deviceValue: "8.2 bar")]
        ),
        receivedAt: Date(timeIntervalSince1970: 1_800_000_000)
    )

    @Test func aChangeShowsItsAuthorCarrierAndResult() {
        let table = AdminFormatter.changes([Self.change])
        for text in [
            "checks/A320-tyres", "alice", "bob", "conflict on reading", "6f1c2e0a-8b3d-4c5e-9f70-112233445566",
        ] {
            #expect(table.contains(text), "\(text)")
        }
        let conflicts = AdminFormatter.conflicts([Self.change])
        for text in ["reading", "8.0 bar", "8.2 bar", "alice"] {
            #expect(conflicts.contains(text), "\(text)")
        }
    }

    @Test func theJSONCarriesEveryPart() throws {
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(AdminFormatter.json([Self.change]).utf8)) as? [[String: Any]]
        )
        let object = try #require(json.first)
        #expect(object["author"] as? String == "alice")
        #expect(object["carrier"] as? String == "bob")
        #expect(object["outcome"] as? String == "conflict")
        #expect(object["version"] as? Int == 3)
        #expect(object["receivedAt"] as? String == "2027-01-15T08:00:00Z")
        let conflict = try #require((object["conflicts"] as? [[String: Any]])?.first)
        #expect(conflict["serverValue"] as? String == "8.0 bar")
        #expect(conflict["deviceValue"] as? String == "8.2 bar")
    }
}

@Suite("gangway admin's times: as the API wrote them, whatever the year")
struct AdminDateFormatTests {
    struct Stamped: Encodable {
        var time: Date
    }

    @Test(
        "year 1, 1582 and today read back as the API's RFC 3339 text, in JSON and (in UTC) in tables",
        arguments: ["0001-01-01T00:00:00Z", "1582-10-04T12:30:00Z", "2026-11-27T06:00:00Z", "9999-12-31T23:59:59Z"]
    )
    func datesAsSent(text: String) throws {
        let date = try LenientDateTranscoder().decode(text)
        let json = AdminFormatter.json(Stamped(time: date))
        #expect(json == #"{"time":"\#(text)"}"#)
        let offset = TimeInterval(TimeZone.current.secondsFromGMT(for: date))
        let shown = AdminFormatter.date(date.addingTimeInterval(-offset))
        #expect(shown == text.prefix(10) + " " + text.dropFirst(11).prefix(5))
    }
}

@Suite("gangway admin's tables line up whatever the names")
struct AdminTableWidthTests {
    @Test func wideAndCombinedNamesAreWholeAndAligned() {
        let table = AdminFormatter.table(
            ["USER", "NAME", "STATUS"],
            [["zoe", "👩‍✈️ Zoë", "active"], ["kenji", "山田 健二", "blocked"], ["ana", "Ana", "active"]]
        )
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        // Foundation's padding counted UTF-16 units and cut the pilot's name to its emoji.
        #expect(table.contains("👩‍✈️ Zoë"))
        #expect(table.contains("山田 健二"))
        // The status column starts at the same terminal column on every line.
        let statuses = ["STATUS", "active", "blocked", "active"]
        #expect(zip(lines, statuses).allSatisfy { $0.hasSuffix($1) })
        let starts = zip(lines, statuses).map { TerminalColumns.width(of: $0.dropLast($1.count)) }
        #expect(Set(starts).count == 1, "\(starts)")
    }
}

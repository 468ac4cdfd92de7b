import Foundation
import GangwayProtocol
import Testing

@Suite("A time an operator types is read as UTC: a date, a minute or a second, with or without Z")
struct UTCTimeTests {
    @Test(
        "each accepted form is the same instant as its ISO 8601 reading in UTC",
        arguments: [
            ("2026-11-26", "2026-11-26T00:00:00Z"), ("2026-11-26T08:05", "2026-11-26T08:05:00Z"),
            ("2026-11-26T08:05:30", "2026-11-26T08:05:30Z"), ("2026-11-26T08:05Z", "2026-11-26T08:05:00Z"),
            ("2026-11-26T08:05:30Z", "2026-11-26T08:05:30Z"),
        ]
    )
    func accepted(_ typed: String, _ iso: String) throws {
        #expect(UTCTime.parse(typed) == (try Date(iso, strategy: .iso8601)))
    }

    @Test(
        "anything else is no time",
        arguments: [
            "", "yesterday", "2026-13-01", "2026-11-26T25:00", "26/11/2026", "2026-11-26 08:05", "2026-11-26T08",
        ]
    )
    func refused(_ typed: String) {
        #expect(UTCTime.parse(typed) == nil)
    }
}

import Foundation
import GangwayProtocol
import Testing

@Suite("RFC 3339 date-times as the API reads them")
struct LenientDateTranscoderTests {
    @Test(
        "valid forms are read to the same instant",
        arguments: [
            ("2026-11-22T06:00:00Z", 1_795_327_200.0),
            ("2026-11-22t06:00:00z", 1_795_327_200.0),
            ("2026-11-22T06:00:00.250Z", 1_795_327_200.25),
            ("2026-11-22T08:00:00+02:00", 1_795_327_200.0),
            ("2026-11-21T10:10:00-19:50", 1_795_327_200.0),
            ("2024-02-29T00:00:00Z", 1_709_164_800.0),
            ("1970-01-01T00:00:00Z", 0.0),
            ("2016-12-31T23:59:60Z", 1_483_228_799.0),
        ]
    )
    func valid(text: String, seconds: Double) throws {
        let date = try LenientDateTranscoder().decode(text)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_1)
    }

    @Test(
        "malformed or impossible date-times are refused",
        arguments: [
            "2026-11-22", "2026-11-22T06:00:00", "2026-13-01T00:00:00Z", "2025-02-29T00:00:00Z",
            "2026-11-31T00:00:00Z", "2026-11-22T24:00:00Z", "2026-11-22T06:60:00Z", "2026-11-22T06:00:00+24:00",
            "2026-11-22T06:00:00.Z", "2026-11-22T06:00:00Z ", "26-11-22T06:00:00Z", "",
        ]
    )
    func invalid(text: String) {
        #expect(throws: (any Error).self) { try LenientDateTranscoder().decode(text) }
    }

    @Test("written in UTC to the second")
    func writes() throws {
        #expect(
            try LenientDateTranscoder().encode(Date(timeIntervalSince1970: 1_795_327_200.75)) == "2026-11-22T06:00:00Z"
        )
    }
}

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

    /// Foundation's Gregorian calendar is Julian before 15 October 1582; RFC 3339's is not.
    @Test("written as Foundation's ISO 8601 style writes it, from the Gregorian reform on")
    func writesAsFoundation() throws {
        let foundation = Date.ISO8601FormatStyle()
        var generator = SystemRandomNumberGenerator()
        var instants: [Double] = [
            0, -0.5, -1, -86_400, -86_400.25, 951_782_400, 1_709_164_800, 4_107_542_399.999,
            -12_219_292_800, -12_219_292_799.5, 253_402_300_799.9, -2_208_988_800, 1_795_327_200.75,
        ]
        for _ in 0..<5_000 {
            instants.append(Double.random(in: -12_219_292_800..<253_402_300_800, using: &generator))
        }
        for instant in instants {
            let date = Date(timeIntervalSince1970: instant)
            #expect(LenientDateTranscoder.format(date) == foundation.format(date), "at \(instant)")
        }
    }

    @Test("what it writes reads back to the same second, from year 0000 to 9999")
    func roundTrip() throws {
        var instants = Array(stride(from: -62_167_219_200.0, to: 253_402_300_800, by: 7_776_000.123))
        instants += [-62_167_219_200, 253_402_300_799.999, -0.001, 951_868_800]
        for instant in instants {
            let text = LenientDateTranscoder.format(Date(timeIntervalSince1970: instant))
            let read = try LenientDateTranscoder().decode(text)
            #expect(read.timeIntervalSince1970 == instant.rounded(.down), "\(text)")
            #expect(text.count == 20)
        }
    }
}

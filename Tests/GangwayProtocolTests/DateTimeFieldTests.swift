import Foundation
import GangwayProtocol
import Testing

@Suite("A date-time field's text is read digit by digit, as Foundation's parser and formatter would take it")
struct DateTimeFieldTests {
    /// The check as it stood before: Foundation parses the seconds, and only a time that
    /// formats back as written is one; the fraction, 1 to 9 digits. It agrees from 1583 on:
    /// before, Foundation's calendar is the Julian one.
    static func reference(_ value: String) -> Date? {
        let bytes = Array(value.utf8)
        guard bytes.count >= 20, bytes.count <= 30, bytes.last == UInt8(ascii: "Z") else { return nil }
        let seconds = String(decoding: bytes[0..<19], as: UTF8.self)
        var fraction = 0.0
        if bytes.count > 20 {
            let digits = bytes[20..<(bytes.count - 1)]
            guard bytes[19] == UInt8(ascii: "."), !digits.isEmpty,
                digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return nil }
            fraction = Double("0." + String(decoding: digits, as: UTF8.self))!
        }
        let shape = seconds.utf8.enumerated().allSatisfy { index, byte in
            switch index {
            case 4, 7: byte == UInt8(ascii: "-")
            case 10: byte == UInt8(ascii: "T")
            case 13, 16: byte == UInt8(ascii: ":")
            default: (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        }
        guard shape, let date = try? Date(seconds + "Z", strategy: .iso8601), date.formatted(.iso8601) == seconds + "Z"
        else { return nil }
        return date.addingTimeInterval(fraction)
    }

    @Test func everyTextTheReferenceTakesIsTakenAsTheSameTimeAndNoOther() {
        var generator = SystemRandomNumberGenerator()
        func two(_ range: ClosedRange<Int>) -> String {
            let number = Int.random(in: range, using: &generator)
            return number < 10 ? "0\(number)" : "\(number)"
        }
        let years = ["1583", "1600", "1900", "1969", "1970", "2000", "2024", "2026", "2100", "9999"]
        var checked = 0
        var taken = 0
        for round in 0..<20_000 {
            let year =
                round % 3 == 0
                ? String(Int.random(in: 1583...9999, using: &generator)) : years.randomElement()!
            var text = "\(year)-\(two(0...13))-\(two(0...32))T\(two(0...25)):\(two(0...61)):\(two(0...61))"
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: text += "." + String((0..<Int.random(in: 1...10, using: &generator)).map { _ in "7" })
            case 1: text += "."
            case 2: text += ".5x"
            default: break
            }
            if Int.random(in: 0..<20, using: &generator) != 0 { text += "Z" }
            let expected = Self.reference(text)
            let read = FieldType.dateTime(text)
            #expect((expected == nil) == (read == nil), "\(text)")
            if let expected, let read {
                // As close as a Double's seconds since 1970 hold the time (coarser far from 1970).
                let tolerance = max(1e-6, 4 * read.timeIntervalSince1970.magnitude.ulp)
                #expect(abs(expected.timeIntervalSince(read)) <= tolerance, "\(text)")
                taken += 1
            }
            #expect(FieldType.dateTime.accepts(text) == (read != nil), "\(text)")
            checked += 1
        }
        #expect(checked == 20_000 && taken > 1_000)
    }

    @Test func theCalendarIsChecked() {
        for (text, valid) in [
            ("2024-02-29T23:59:59Z", true), ("2023-02-29T00:00:00Z", false), ("2000-02-29T00:00:00Z", true),
            ("1900-02-29T00:00:00Z", false), ("2026-04-31T00:00:00Z", false), ("2026-12-31T24:00:00Z", false),
            ("2026-12-03T14:05:60Z", false), ("2026-12-03T14:05:00.250Z", true), ("2026-12-03T14:05:00.Z", false),
            ("2026-12-03 14:05:00Z", false), ("2026-12-03T14:05:00", false), ("2026-12-03T14:05:00.1234567890Z", false),
            ("", false), ("２０２６-12-03T14:05:00Z", false), ("1500-02-29T00:00:00Z", false),
            ("0000-02-29T00:00:00Z", true), ("1582-10-10T00:00:00Z", true),
        ] {
            #expect((FieldType.dateTime(text) != nil) == valid, "\(text)")
        }
        #expect(FieldType.dateTime("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(FieldType.dateTime("2026-12-03T14:05:00.250Z") == Date(timeIntervalSince1970: 1_796_306_700.25))
        // Proleptic Gregorian: 1 January of year 1 is 719,162 days before 1970.
        #expect(FieldType.dateTime("0001-01-01T00:00:00Z") == Date(timeIntervalSince1970: -719_162 * 86_400))
    }
}

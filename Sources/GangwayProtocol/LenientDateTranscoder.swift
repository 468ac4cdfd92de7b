import Foundation
import OpenAPIRuntime

/// RFC 3339 date-times, as the document's `format: date-time` allows them: any year from
/// 0000, fractional seconds or none, `Z` or an offset up to ±23:59, `T` or `t`. Written
/// in UTC without fractions (`2026-11-22T06:00:00Z`).
///
/// Foundation's ISO 8601 parsers refuse some of these (offsets past ±18 hours, a
/// lowercase `t`), and a client's valid timestamp must not be a 400.
public struct LenientDateTranscoder: DateTranscoder {
    public init() {}

    private static let writer = Date.ISO8601FormatStyle()

    /// The instants of the years 0000 to 9999 in UTC, in seconds since 1970: what RFC 3339
    /// writes, so every time the API carries; what else Gangway reads (a sealed change's
    /// time) takes no other.
    public static let writableRange: Range<TimeInterval> = -62_167_219_200..<253_402_300_800

    public func encode(_ date: Date) throws -> String {
        Self.format(date)
    }

    /// `YYYY-MM-DDThh:mm:ssZ` in UTC, the fraction of a second dropped, computed directly
    /// since every date of every response passes here.
    ///
    /// The calendar is the proleptic Gregorian one RFC 3339 and ``parse(_:)`` use, so what
    /// is written reads back to the same second; from October 1582 on it is what
    /// Foundation's `ISO8601FormatStyle` writes (which turns Julian before). Years outside
    /// 0000...9999, which RFC 3339 cannot write, go to Foundation.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, writableRange.contains(interval) else {
            return writer.format(date)
        }
        let seconds = Int(interval.rounded(.down))
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, second) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        let (year, month, dayOfMonth) = civil(fromDays: day)
        var bytes = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int, _ digits: Int, at offset: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(year, 4, at: 0)
        put(month, 2, at: 5)
        put(dayOfMonth, 2, at: 8)
        put(second / 3600, 2, at: 11)
        put(second / 60 % 60, 2, at: 14)
        put(second % 60, 2, at: 17)
        for (index, separator) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "Z")]
            as [(Int, Unicode.Scalar)]
        {
            bytes[index] = UInt8(separator.value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm; the
    /// inverse of ``daysFromCivil(year:month:day:)``).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    public func decode(_ text: String) throws -> Date {
        guard let date = Self.parse(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Not an RFC 3339 date-time."))
        }
        return date
    }

    /// Parses `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)`.
    public static func parse(_ text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t"),
            let hour = scanner.number(digits: 2), scanner.skip(":"),
            let minute = scanner.number(digits: 2), scanner.skip(":"),
            let second = scanner.number(digits: 2)
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            guard let digits = scanner.fraction() else { return nil }
            fraction = digits
        }
        var offset = 0
        if scanner.skip("Z") || scanner.skip("z") {
            offset = 0
        } else {
            let sign: Int
            if scanner.skip("+") {
                sign = 1
            } else if scanner.skip("-") {
                sign = -1
            } else {
                return nil
            }
            guard let hours = scanner.number(digits: 2), scanner.skip(":"), let minutes = scanner.number(digits: 2),
                hours <= 23, minutes <= 59
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard scanner.atEnd, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        // A leap second (:60) counts as the last second of its minute.
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        mutating func number(digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }

        mutating func fraction() -> Double? {
            var value = 0.0
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                value += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            return index > start ? value : nil
        }
    }
}

extension Configuration {
    /// The configuration both sides of the API use: lenient dates, compact sorted JSON.
    public static var gangway: Configuration {
        Configuration(dateTranscoder: LenientDateTranscoder(), jsonEncodingOptions: [.sortedKeys])
    }
}

extension JSONEncoder {
    /// An encoder that writes what the generated code does under
    /// ``OpenAPIRuntime/Configuration/gangway``: compact JSON, sorted keys, its dates.
    package static var gangway: JSONEncoder {
        let configuration = Configuration.gangway
        let encoder = JSONEncoder()
        encoder.outputFormatting = configuration.jsonEncodingOptions.contains(.sortedKeys) ? [.sortedKeys] : []
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(configuration.dateTranscoder.encode(date))
        }
        return encoder
    }
}

extension JSONDecoder {
    /// A decoder that reads what the generated code does under
    /// ``OpenAPIRuntime/Configuration/gangway``: its dates.
    package static var gangway: JSONDecoder {
        let transcoder = Configuration.gangway.dateTranscoder
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            try transcoder.decode(try decoder.singleValueContainer().decode(String.self))
        }
        return decoder
    }
}

import Foundation

/// The type of an entity's field, as its set's ``EntitySchema`` declares it. Values travel
/// and are signed as text in every type; the type says which texts a field takes, and how
/// a device's local store reads them (numbers compare as numbers, times as times).
///
/// New types may be added: a device that does not know a type reads its values as text.
public struct FieldType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Any text (up to ``EntityLimits/valueLength``, no control characters).
    public static let text = FieldType(rawValue: "text")
    /// A whole number from -2⁶³ to 2⁶³-1, written without a sign for positives and
    /// without leading zeros: `42`, `-7`, `0`.
    public static let integer = FieldType(rawValue: "integer")
    /// A decimal number written in digits, with an optional fraction after a point:
    /// `12.5`, `-0.25`, `8200`. Its digits are kept as written (`12.50` stays so).
    public static let decimal = FieldType(rawValue: "decimal")
    /// `true` or `false`.
    public static let boolean = FieldType(rawValue: "boolean")
    /// A time in UTC, in RFC 3339 with a `Z`, to the second or finer:
    /// `2026-12-03T14:05:00Z`, `2026-12-03T14:05:00.250Z`. Such texts sort as their times do.
    public static let dateTime = FieldType(rawValue: "date-time")

    /// The types this version knows, in the order they are offered.
    public static let known: [FieldType] = [.text, .integer, .decimal, .boolean, .dateTime]

    public var description: String { rawValue }

    /// Whether `value`, not empty, is one of this type's texts. A type this version does
    /// not know takes any text.
    public func accepts(_ value: String) -> Bool {
        switch self {
        case .integer: Self.isInteger(value)
        case .decimal: Self.isDecimal(value)
        case .boolean: value == "true" || value == "false"
        case .dateTime: Self.isDateTime(value)
        default: true
        }
    }

    /// The words a refusal uses: what the field must be.
    public var expected: String {
        switch self {
        case .integer: "a whole number, as 42"
        case .decimal: "a decimal number, as 12.5"
        case .boolean: "true or false"
        case .dateTime: "a UTC date-time, as 2026-12-03T14:05:00Z"
        default: "text"
        }
    }

    /// Whether every value of this type is one of `other`'s too, so that a field may change
    /// from this type to `other` whatever its entities hold: to the same type, to text,
    /// and from integer to decimal.
    public func isWidened(to other: FieldType) -> Bool {
        self == other || other == .text || (self == .integer && other == .decimal)
    }

    private static func isInteger(_ value: String) -> Bool {
        isDigits(value.utf8, allowingSign: true) && value != "-0" && Int64(value) != nil
    }

    private static func isDecimal(_ value: String) -> Bool {
        let parts = value.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard isDigits(parts[0], allowingSign: true) else { return false }
        guard parts.count == 2 else { return true }
        return !parts[1].isEmpty && parts[1].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Digits with no leading zero (but `0` itself), after an optional `-`.
    private static func isDigits(_ bytes: some Collection<UInt8>, allowingSign: Bool) -> Bool {
        var digits = bytes[...]
        if allowingSign, digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard let first = digits.first, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        return first != UInt8(ascii: "0") || digits.count == 1
    }

    /// `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1 to 9 digits, and `Z`: a time that
    /// reads back as written (no hour 24, no 31 April).
    private static func isDateTime(_ value: String) -> Bool { dateTime(value) != nil }

    /// The time a date-time text names (see ``dateTime``), or `nil` for a text that is not
    /// one: read digit by digit, the calendar checked (no hour 24, no 31 April, no 29
    /// February outside a leap year), without a formatter, since a store reads it for
    /// every row it writes. Every year is read by the Gregorian calendar, as RFC 3339
    /// reads it (Foundation's parser takes years before 1583 as Julian).
    public static func dateTime(_ value: String) -> Date? {
        var value = value
        return value.withUTF8 { bytes -> Date? in
            guard bytes.count >= 20, bytes.count <= 30, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var result = 0
                for index in range {
                    let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
                    guard (0...9).contains(digit) else { return nil }
                    result = result * 10 + digit
                }
                return result
            }
            for (index, separator) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")] as [(Int, Unicode.Scalar)]
            where bytes[index] != UInt8(ascii: separator) {
                return nil
            }
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                (1...12).contains(month), day >= 1, day <= days(inMonth: month, of: year),
                hour < 24, minute < 60, second < 60
            else { return nil }
            var fraction = 0.0
            if bytes.count > 20 {
                guard bytes[19] == UInt8(ascii: "."), bytes.count >= 22, let digits = number(20..<(bytes.count - 1))
                else { return nil }
                fraction = Double(digits) / pow(10, Double(bytes.count - 21))
            }
            let seconds =
                (daysSince1970(year: year, month: month, day: day) * 86_400) + hour * 3_600 + minute * 60
                + second
            return Date(timeIntervalSince1970: Double(seconds) + fraction)
        }
    }

    private static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a day of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

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
    private static func isDateTime(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count >= 20, bytes.count <= 30, bytes.last == UInt8(ascii: "Z") else { return false }
        let seconds = String(decoding: bytes[0..<19], as: UTF8.self)
        if bytes.count > 20 {
            let fraction = bytes[19..<(bytes.count - 1)]
            guard fraction.count >= 2, fraction.first == UInt8(ascii: "."),
                fraction.dropFirst().allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return false }
        }
        let shape = seconds.utf8.enumerated().allSatisfy { index, byte in
            switch index {
            case 4, 7: byte == UInt8(ascii: "-")
            case 10: byte == UInt8(ascii: "T")
            case 13, 16: byte == UInt8(ascii: ":")
            default: (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        }
        guard shape, let date = try? Date(seconds + "Z", strategy: .iso8601) else { return false }
        return date.formatted(.iso8601) == seconds + "Z"
    }
}

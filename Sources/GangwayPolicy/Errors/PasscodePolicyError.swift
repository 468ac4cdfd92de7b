/// A passcode policy that cannot be used: malformed settings JSON, a value of the wrong
/// type, a value out of range, or rules that contradict each other. The message names
/// the settings key and the problem.
public struct PasscodePolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case malformedJSON
        case wrongType
        case invalidValue
        case conflictingRules
    }

    private let code: Code
    /// The settings key at fault (``PasscodePolicy/SettingsKey``), if there is one.
    public let key: String?
    /// What is wrong, for a person.
    public let reason: String

    private init(_ code: Code, key: String?, reason: String) {
        self.code = code
        self.key = key
        self.reason = reason
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The document is not JSON, or not a JSON object where one is expected.
    public static let malformedJSON = Self(.malformedJSON, key: nil, reason: "")
    /// A value has a type that cannot be read as the expected one.
    public static let wrongType = Self(.wrongType, key: nil, reason: "")
    /// A value is out of range.
    public static let invalidValue = Self(.invalidValue, key: nil, reason: "")
    /// Each value is valid alone, but one rule contradicts another (a digits-only passcode
    /// that must hold a letter).
    public static let conflictingRules = Self(.conflictingRules, key: nil, reason: "")

    static func malformedJSON(_ reason: String) -> Self { Self(.malformedJSON, key: nil, reason: reason) }
    static func wrongType(key: String, expected: String) -> Self {
        Self(.wrongType, key: key, reason: "expected \(expected)")
    }
    static func invalidValue(key: String, reason: String) -> Self {
        Self(.invalidValue, key: key, reason: reason)
    }
    /// A value outside `range`, for the setting `key`.
    public static func outOfRange(_ key: String, _ range: ClosedRange<Int>) -> Self {
        Self(.invalidValue, key: key, reason: "must be between \(range.lowerBound) and \(range.upperBound)")
    }
    static func conflictingRules(key: String, reason: String) -> Self {
        Self(.conflictingRules, key: key, reason: reason)
    }

    public var description: String {
        switch code {
        case .malformedJSON: "malformed passcode policy JSON: \(reason)"
        case .wrongType: "passcode policy value \(key ?? "?") has the wrong type: \(reason)"
        case .invalidValue: "passcode policy value \(key ?? "?") is invalid: \(reason)"
        case .conflictingRules: "passcode policy rules contradict each other: \(reason)"
        }
    }
}

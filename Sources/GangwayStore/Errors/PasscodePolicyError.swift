/// A passcode policy that cannot be used: malformed settings JSON, a value of the wrong
/// type, or a value out of range. The message names the key and the problem.
public struct PasscodePolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case malformedJSON
        case wrongType
        case invalidValue
    }

    private let code: Code
    /// The settings key (or policy property) at fault, if there is one.
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
    /// A value is out of range or contradicts another.
    public static let invalidValue = Self(.invalidValue, key: nil, reason: "")

    static func malformedJSON(_ reason: String) -> Self { Self(.malformedJSON, key: nil, reason: reason) }
    static func wrongType(key: String, expected: String) -> Self {
        Self(.wrongType, key: key, reason: "expected \(expected)")
    }
    static func invalidValue(key: String, reason: String) -> Self {
        Self(.invalidValue, key: key, reason: reason)
    }

    public var description: String {
        switch code {
        case .malformedJSON: "malformed passcode policy JSON: \(reason)"
        case .wrongType: "passcode policy value \(key ?? "?") has the wrong type: \(reason)"
        case .invalidValue: "passcode policy value \(key ?? "?") is invalid: \(reason)"
        }
    }
}

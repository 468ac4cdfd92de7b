/// One requirement of a ``PasscodePolicy`` that a passcode can meet or miss.
///
/// A passcode screen shows the rules as a checklist; ``PasscodePolicy/evaluate(_:)`` says
/// which of them a candidate passcode meets.
public enum PasscodeRule: Sendable, Hashable, Codable {
    /// At least this many characters.
    case minimumLength(Int)
    /// Only the digits 0 to 9.
    case digitsOnly
    /// At least one digit.
    case containsDigit
    /// At least one uppercase letter.
    case containsUppercase
    /// At least one lowercase letter.
    case containsLowercase
    /// At least one character that is neither a letter nor a digit.
    case containsSpecial
    /// At least this many different characters.
    case minimumUniqueCharacters(Int)
    /// Not one of the most common passcodes, a run of one repeated character, or a plain
    /// ascending or descending sequence.
    case notCommon
    /// Not one of the last passcodes of this store.
    case notRecentlyUsed(Int)

    /// A short text for a checklist or an error message, in English.
    public var summary: String {
        switch self {
        case .minimumLength(let count): "at least \(count) characters"
        case .digitsOnly: "digits only"
        case .containsDigit: "at least one digit"
        case .containsUppercase: "at least one uppercase letter"
        case .containsLowercase: "at least one lowercase letter"
        case .containsSpecial: "at least one special character"
        case .minimumUniqueCharacters(let count): "at least \(count) different characters"
        case .notCommon: "not a common or easily guessed passcode"
        case .notRecentlyUsed(let count):
            count == 1 ? "not the previous passcode" : "not one of the last \(count) passcodes"
        }
    }
}

/// Whether a passcode meets one rule.
public struct PasscodeRuleResult: Sendable, Hashable {
    /// The rule.
    public let rule: PasscodeRule
    /// Whether the passcode meets it.
    public let isSatisfied: Bool

    /// Creates a result.
    public init(rule: PasscodeRule, isSatisfied: Bool) {
        self.rule = rule
        self.isSatisfied = isSatisfied
    }
}

/// The outcome of checking a passcode against a policy: one result per rule, in the order
/// a checklist shows them.
public struct PasscodeEvaluation: Sendable, Hashable {
    /// Each rule of the policy and whether the passcode meets it.
    public let results: [PasscodeRuleResult]

    /// Creates an evaluation from its results (the store adds the reuse rule, which needs
    /// its history, to the policy's own).
    public init(results: [PasscodeRuleResult]) {
        self.results = results
    }

    /// Whether every rule holds.
    public var isAcceptable: Bool { results.allSatisfy(\.isSatisfied) }

    /// The rules the passcode misses.
    public var failedRules: [PasscodeRule] { results.filter { !$0.isSatisfied }.map(\.rule) }
}

/// The rule of the names that go in a path: an app's, a device's, an entity set's and an
/// entity's ID and a destination's name (``identifier``), and a user's or an operator's
/// name, which may hold `@` too (``username``, ``operatorName``). The server's refusals and the admin
/// command's say it in the same words.
public struct IdentifierRule: Sendable, Hashable {
    /// How many characters a name has.
    public let length: ClosedRange<Int>
    /// The characters besides ASCII letters and digits a name may hold (never first).
    public let punctuation: String

    /// IDs and destination names: 1 to 64 characters.
    public static let identifier = IdentifierRule(length: APILimits.identifier, punctuation: "._-")
    /// User names: 1 to 128 characters, `@` allowed.
    public static let username = IdentifierRule(length: APILimits.username, punctuation: "._@-")
    /// Operator names: as user names, 1 to 64 characters.
    public static let operatorName = IdentifierRule(length: APILimits.operatorName, punctuation: "._@-")

    /// Whether `value` keeps the rule.
    public func matches(_ value: String) -> Bool { problem(value) == nil }

    /// Why `value` breaks the rule, as the end of a sentence that starts with the name of
    /// what it is ("username must …"); `nil` when it keeps it.
    public func problem(_ value: String) -> String? {
        let scalars = value.unicodeScalars
        guard length.contains(scalars.count) else {
            return "must be \(length.lowerBound) to \(length.upperBound) characters long"
        }
        guard let first = scalars.first, first.isASCIIAlphanumeric,
            scalars.allSatisfy({ $0.isASCIIAlphanumeric || punctuation.unicodeScalars.contains($0) })
        else { return "must start with an ASCII letter or digit and hold only ASCII letters, digits and \(listed)" }
        return nil
    }

    /// The punctuation as a person reads it: `'.', '_' and '-'`.
    private var listed: String {
        let quoted = punctuation.map { "'\($0)'" }
        return quoted.dropLast().joined(separator: ", ") + " and " + (quoted.last ?? "")
    }
}

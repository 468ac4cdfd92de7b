/// Text the user typed that must not show up anywhere: a passcode or a password.
///
/// Its description, debug description and mirror are redacted, so printing a screen, an
/// input, an outcome or an error that holds one never reveals it. Every input and outcome
/// that carries a passcode or password carries it as a `Secret`. Read ``value`` where the
/// secret is used.
public struct Secret: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The secret itself.
    public let value: String

    public init(_ value: String) { self.value = value }
    public init(stringLiteral value: String) { self.value = value }

    /// Whether nothing was typed.
    public var isEmpty: Bool { value.isEmpty }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "Secret(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

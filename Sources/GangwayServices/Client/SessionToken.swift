import Foundation

/// The opaque bearer token a sign-in returns. Its description is redacted, so it cannot
/// reach a log by accident; the device keeps it in the user's secure store.
public struct SessionToken: Sendable, Hashable, CustomStringConvertible {
    /// The token's text, sent as `Authorization: Bearer …`.
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "SessionToken(<redacted>)" }
}

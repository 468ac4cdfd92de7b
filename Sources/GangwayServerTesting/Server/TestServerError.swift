/// A test server call that did not go as the test expected; the message names the
/// request and the server's answer, never a token or password sent.
public struct TestServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for a person.
    public let description: String

    /// An error with the given message.
    public init(_ description: String) { self.description = description }
}

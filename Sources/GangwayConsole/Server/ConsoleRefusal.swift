public import HTTPTypes

/// An operation's refusal as the console shows it: the API's status and its message for
/// people (never a secret), and when to try again. The server's error conforms.
public protocol ConsoleRefusal: Error {
    var status: HTTPResponse.Status { get }
    var message: String { get }
    /// Seconds to wait before trying again (429, 503).
    var retryAfterSeconds: Int? { get }
}

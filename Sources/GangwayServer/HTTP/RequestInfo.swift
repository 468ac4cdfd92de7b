import NIOCore

/// What the HTTP layer knows about the request an API handler is serving.
///
/// The generated handlers see only the operation's input; the request ID, the peer's
/// address and the bearer token reach them through this task-local value.
struct RequestInfo: Sendable {
    var requestID: String
    /// The peer's socket address, kept as it is: only sign-in needs it as text.
    var peer: SocketAddress?
    /// The `Authorization: Bearer` token, if the request carried one.
    var bearerToken: String?

    /// The peer's IP address, used to throttle sign-ins.
    var address: String { peer?.ipAddress ?? "unknown" }

    @TaskLocal static var current = RequestInfo(requestID: "-", peer: nil, bearerToken: nil)
}

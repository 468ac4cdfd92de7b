import GangwaySystem
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
    /// The `X-Forwarded-For` header, believed only from a trusted proxy (see
    /// ``APIServices/Settings/trustedProxies``).
    var forwardedFor: String? = nil
    /// What an admin operation changed, for the audit: set for each request whose method
    /// may change something.
    var auditNote: AuditNote? = nil
    /// The request's trace (W3C Trace Context), passed on to the backends it reaches.
    var trace = RequestTrace.new()

    /// The client's IP address, used to throttle sign-ins: the peer's, or the one a
    /// trusted proxy forwarded.
    func clientAddress(trusting proxies: [AddressRange]) -> String {
        let peer = peer?.ipAddress ?? "unknown"
        return proxies.isEmpty ? peer : proxies.clientAddress(peer: peer, forwardedFor: forwardedFor)
    }

    @TaskLocal static var current = RequestInfo(requestID: "-", peer: nil, bearerToken: nil)
}

import GangwayProtocol

/// Who is asking, as the access check sees them (``AccessPolicy``).
///
/// Taken from the request by the HTTP gate, never from what a body says; the console
/// names its signed-in operator when it runs an operation in process.
enum Principal: Sendable, Equatable, CustomStringConvertible {
    /// No bearer token.
    case anonymous
    /// A bearer token the server does not know for this kind of operation: neither a
    /// session's (for a device's operation) nor the admin token (for one that needs a
    /// role).
    case unknownToken
    /// A session's token (not revoked; an expired one too, which its handler answers
    /// as expired): its handler checks it against the app the path names.
    case session
    /// The admin token: every role.
    case adminToken
    /// An operator signed in to the console, with their role.
    case console(operator: String, role: OperatorRole)

    var description: String {
        switch self {
        case .anonymous: "no token"
        case .unknownToken: "an unknown token"
        case .session: "a session's token"
        case .adminToken: "the admin token"
        case .console(let name, let role): "\(name) (\(role.rawValue))"
        }
    }
}

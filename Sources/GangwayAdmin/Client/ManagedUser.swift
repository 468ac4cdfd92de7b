import Foundation
import GangwayClient
import GangwayProtocol

/// A user as the server's admin API shows it: never their password. ``AdminClient`` makes
/// them from the server's answers.
public struct ManagedUser: Sendable, Hashable {
    public var username: String
    public var displayName: String
    /// A blocked user cannot sign in; their sessions were revoked when they were blocked.
    public var isBlocked: Bool
    public var createdAt: Date

    /// The user the admin API answered with.
    init(_ user: Components.Schemas.User) {
        username = user.username
        displayName = user.displayName
        isBlocked = user.blocked
        createdAt = user.createdAt
    }
}

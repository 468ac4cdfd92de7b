import Foundation
import GangwayProtocol

/// A user as the server's admin API shows it: never their password.
public struct ManagedUser: Sendable, Hashable {
    public var username: String
    public var displayName: String
    /// A blocked user cannot sign in; their sessions were revoked when they were blocked.
    public var isBlocked: Bool
    public var createdAt: Date

    public init(username: String, displayName: String, isBlocked: Bool, createdAt: Date) {
        self.username = username
        self.displayName = displayName
        self.isBlocked = isBlocked
        self.createdAt = createdAt
    }

    init(_ user: Components.Schemas.User) {
        self.init(
            username: user.username,
            displayName: user.displayName,
            isBlocked: user.blocked,
            createdAt: user.createdAt
        )
    }
}

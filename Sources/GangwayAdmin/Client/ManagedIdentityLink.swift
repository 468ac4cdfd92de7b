import Foundation
import GangwayClient
import GangwayProtocol

/// A person of an OpenID Connect provider, linked to a user, as the server's admin API
/// shows it.
public struct ManagedIdentityLink: Sendable, Hashable {
    /// The provider's issuer URL.
    public var issuer: String
    /// The person's subject (`sub`) at the provider.
    public var subject: String
    public var username: String
    public var createdAt: Date

    init(_ link: Components.Schemas.IdentityLink) {
        issuer = link.issuer
        subject = link.subject
        username = link.username
        createdAt = link.createdAt
    }
}

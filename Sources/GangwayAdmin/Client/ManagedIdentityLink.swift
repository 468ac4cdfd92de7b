import Foundation
import GangwayClient
import GangwayProtocol

/// A person of an OpenID Connect provider, linked to a user or to an operator, as the
/// server's admin API shows it.
public struct ManagedIdentityLink: Sendable, Hashable {
    /// Who the person is at Gangway.
    public enum Holder: Sendable, Hashable, CustomStringConvertible {
        /// A user, by user name: the person signs in to the apps whose provider has the issuer.
        case user(String)
        /// An operator, by name: the person signs in to the console through the provider.
        case `operator`(String)

        /// The user name, or the operator's name.
        public var name: String {
            switch self {
            case .user(let name), .operator(let name): name
            }
        }

        /// As a sentence says it: `alice`, or `the operator ops.alice`.
        public var description: String {
            switch self {
            case .user(let name): name
            case .operator(let name): "the operator \(name)"
            }
        }
    }

    /// The provider's issuer URL.
    public var issuer: String
    /// The person's subject (`sub`) at the provider.
    public var subject: String
    public var holder: Holder
    public var createdAt: Date

    init(_ link: Components.Schemas.IdentityLink) {
        issuer = link.issuer
        subject = link.subject
        holder = .user(link.username)
        createdAt = link.createdAt
    }

    init(_ identity: Components.Schemas.OperatorIdentity, operator name: String) {
        issuer = identity.issuer
        subject = identity.subject
        holder = .operator(name)
        createdAt = identity.createdAt
    }
}

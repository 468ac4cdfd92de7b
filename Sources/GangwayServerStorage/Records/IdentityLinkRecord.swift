import Foundation

/// Who a person of an external OpenID Connect provider is at Gangway: a user of the apps,
/// or an operator of the console.
public enum IdentityHolder: Sendable, Hashable {
    /// A user, by user name: the person signs in to an app whose provider has the issuer.
    case user(String)
    /// An operator, by name: the person signs in to the console through the provider.
    case `operator`(String)

    /// The two kinds of holder: a person is linked to one of each at most.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case user
        case `operator`
    }

    public var kind: Kind {
        switch self {
        case .user: .user
        case .operator: .operator
        }
    }

    /// The user name, or the operator's name.
    public var name: String {
        switch self {
        case .user(let name), .operator(let name): name
        }
    }

    /// The holder of `kind` named `name`.
    public init(_ kind: Kind, _ name: String) {
        switch kind {
        case .user: self = .user(name)
        case .operator: self = .operator(name)
        }
    }
}

/// A person of an external OpenID Connect provider linked to a user or an operator: the
/// provider's issuer and its subject (`sub`, unique and never reassigned within one issuer,
/// OpenID Connect Core §2). A user's link is made by an admin, or at the person's first
/// sign-in when the app's provider creates users; an operator's by an admin.
public struct IdentityLinkRecord: Sendable, Hashable {
    /// The provider's issuer URL.
    public var issuer: String
    /// The person's subject (`sub`) at the provider.
    public var subject: String
    public var holder: IdentityHolder
    public var createdAt: Date

    public init(issuer: String, subject: String, holder: IdentityHolder, createdAt: Date) {
        self.issuer = issuer
        self.subject = subject
        self.holder = holder
        self.createdAt = createdAt
    }
}

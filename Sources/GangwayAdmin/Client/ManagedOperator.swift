import Foundation
import GangwayProtocol

/// An operator of the console, as the server's admin API shows it.
public struct ManagedOperator: Sendable, Hashable {
    public var name: String
    public var role: OperatorRole
    /// Whether they set a password and a second factor.
    public var isEnrolled: Bool
    public var createdAt: Date
    /// The provider identities that sign in as this operator.
    public var identities: [ManagedIdentityLink]

    /// A person of an OpenID Connect provider who signs in to the console as this operator.
    init(_ wire: Components.Schemas.Operator) {
        name = wire.name
        role = OperatorRole(wire.role)
        isEnrolled = wire.enrolled
        createdAt = wire.createdAt
        identities = (wire.identities ?? []).map { ManagedIdentityLink($0, operator: wire.name) }
    }
}

/// A one-use link where an operator sets a password and a second factor.
public struct OperatorEnrolment: Sendable, Hashable {
    public var `operator`: ManagedOperator
    /// The link: for the operator alone, who opens it in their browser.
    public var url: String
    public var expiresAt: Date

    init(_ wire: Components.Schemas.OperatorEnrolment) {
        self.operator = ManagedOperator(wire._operator)
        url = wire.enrolmentURL
        expiresAt = wire.expiresAt
    }
}

/// One thing an operator or the admin token did, from the server's audit.
public struct AuditEvent: Sendable, Hashable, Codable {
    public var id: Int64
    public var at: Date
    /// The operator's name, or `admin token`.
    public var actor: String
    /// `api` (the admin token) or `console` (an operator).
    public var via: String
    /// The API's operation (`createUser`), or a console event (`signIn`).
    public var action: String
    /// The request's path.
    public var target: String?
    /// The address the request came from.
    public var address: String?
    /// What changed, in words (`status: active → locked`), when the action does not say it all.
    public var detail: String?

    init(_ wire: Components.Schemas.AuditEvent) {
        id = wire.id
        at = wire.at
        actor = wire.actor
        via = wire.via.rawValue
        action = wire.action
        target = wire.target
        address = wire.address
        detail = wire.detail
    }
}

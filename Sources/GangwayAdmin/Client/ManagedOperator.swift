import Foundation
import GangwayProtocol

/// An operator of the console, as the server's admin API shows it: the API's own type.
/// Its `identities` are the provider identities that sign in as this operator.
public typealias ManagedOperator = Components.Schemas.Operator

extension Components.Schemas.Operator {
    /// Whether they set a password and a second factor.
    public var isEnrolled: Bool { enrolled }
}

/// A one-use link where an operator sets a password and a second factor: the API's own
/// type. Its `enrolmentURL` is for the operator alone, who opens it in their browser.
public typealias OperatorEnrolment = Components.Schemas.OperatorEnrolment

/// One thing an operator or the admin token did, from the server's audit: the API's own
/// type. `via` is `api` (the admin token) or `console` (an operator); `detail` says what
/// changed, in words (`status: active → locked`), when the action does not say it all.
public typealias AuditEvent = Components.Schemas.AuditEvent

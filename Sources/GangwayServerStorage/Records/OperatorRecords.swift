import Foundation
import GangwayProtocol

/// A person who runs the server from the console: their own account, apart from the
/// app's users and from the admin token.
public struct OperatorRecord: Sendable, Hashable, Codable {
    public var name: String
    public var role: OperatorRole
    /// The bcrypt hash of the password, once enrolled.
    public var passwordHash: String?
    /// The TOTP secret (RFC 6238) sealed under the server key, once enrolled.
    public var sealedTOTPSecret: Data?
    /// The last time step a code was taken at: a code is taken once.
    public var lastTOTPStep: Int64?
    /// The SHA-256 of the enrolment link's token while it is pending.
    public var enrolmentHash: Data?
    public var enrolmentExpiresAt: Date?
    public var createdAt: Date

    public init(
        name: String,
        role: OperatorRole,
        passwordHash: String? = nil,
        sealedTOTPSecret: Data? = nil,
        lastTOTPStep: Int64? = nil,
        enrolmentHash: Data? = nil,
        enrolmentExpiresAt: Date? = nil,
        createdAt: Date
    ) {
        self.name = name
        self.role = role
        self.passwordHash = passwordHash
        self.sealedTOTPSecret = sealedTOTPSecret
        self.lastTOTPStep = lastTOTPStep
        self.enrolmentHash = enrolmentHash
        self.enrolmentExpiresAt = enrolmentExpiresAt
        self.createdAt = createdAt
    }

    /// Whether the operator set a password and a second factor.
    public var isEnrolled: Bool { passwordHash != nil && sealedTOTPSecret != nil }

    /// The columns, by snake case but the sealed secret's (`totp_secret`).
    enum CodingKeys: String, CodingKey {
        case name, role, passwordHash, lastTOTPStep, enrolmentHash, enrolmentExpiresAt, createdAt
        case sealedTOTPSecret = "totpSecret"
    }
}

/// An operator signed in to the console: the SHA-256 of the cookie, never the cookie.
public struct OperatorSessionRecord: Sendable, Hashable, Codable {
    /// How long a session lasts without a request.
    public static let idleLifetime: Duration = .seconds(30 * 60)
    /// How long a session lasts at most, however busy: a cookie taken from a browser that
    /// is kept busy still ends, and the operator signs in again (with the second factor)
    /// once a working day.
    public static let absoluteLifetime: Duration = .seconds(12 * 60 * 60)
    /// How stale the last request may be before a request records itself: within a
    /// minute, a page read writes nothing.
    public static let touchInterval: Duration = .seconds(60)

    public var tokenHash: Data
    public var operatorName: String
    public var createdAt: Date
    public var lastSeenAt: Date

    /// The columns, by snake case but the operator's (`operator`).
    enum CodingKeys: String, CodingKey {
        case tokenHash, createdAt, lastSeenAt
        case operatorName = "operator"
    }

    public init(tokenHash: Data, operatorName: String, createdAt: Date, lastSeenAt: Date) {
        self.tokenHash = tokenHash
        self.operatorName = operatorName
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// One thing an operator or the admin token did, however it was done. Kept for good:
/// the audit is only ever appended to.
public struct AuditEventRecord: Sendable, Hashable, Codable {
    /// How an action reached the server.
    public enum Channel: String, Sendable, Hashable, CaseIterable, Codable {
        /// The admin API, with the admin token (`gangway admin` or a script).
        case api
        /// The console, by a signed-in operator.
        case console
    }

    /// The event's place in the audit, once recorded.
    public var id: Int64?
    public var at: Date
    /// The operator's name, or `admin token`.
    public var actor: String
    public var via: Channel
    /// What was done, as the API names the operation (`createUser`, `updateDevice`).
    public var action: String
    /// What it was done to: the request's path.
    public var target: String?
    /// The address the request came from.
    public var address: String?
    /// What changed, in words (`status: active → locked`); `nil` when the action says it
    /// all, and for events recorded before the audit said it.
    public var detail: String?

    public init(
        id: Int64? = nil,
        at: Date,
        actor: String,
        via: Channel,
        action: String,
        target: String? = nil,
        address: String? = nil,
        detail: String? = nil
    ) {
        self.id = id
        self.at = at
        self.actor = actor
        self.via = via
        self.action = action
        self.target = target
        self.address = address
        self.detail = detail
    }
}

public import Foundation
internal import GangwayProtocol
import GangwayScreens

/// Why a call to the mobile-services server failed.
///
/// Errors are equal when their kind is equal; the server's stable code, its message (a
/// sentence for people, which the server never fills with a secret) and the time to wait
/// ride along for screens and logs. New kinds can be added without breaking callers.
public struct ServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case unreachable
        case invalidCredentials
        case throttled
        case busy
        case sessionExpired
        case registrationLocked
        case registrationWiped
        case deviceMismatch
        case notFound
        case refused
        case serverFailure
        case invalidResponse
        case notSignedIn
        case serverNotProven
        case authorizationPending
        case slowDown
        case accessDenied
        case expiredToken
        case invalidGrant
        case forgedAnswer
    }

    private let code: Code
    /// The HTTP status, when the server answered.
    public let status: Int?
    /// The server's stable error code, such as `AUTH_FAILED`.
    public let serverCode: String?
    /// The server's message, for people.
    public let serverMessage: String?
    /// When the server asked to wait (a throttled sign-in, a busy server): how long.
    public let retryAfter: Duration?
    /// The server that could not be reached, when it is known: named in ``summary``.
    public let serverURL: URL?

    private init(
        _ code: Code,
        status: Int? = nil,
        serverCode: String? = nil,
        serverMessage: String? = nil,
        retryAfter: Duration? = nil,
        serverURL: URL? = nil
    ) {
        self.code = code
        self.status = status
        self.serverCode = serverCode
        self.serverMessage = serverMessage
        self.retryAfter = retryAfter
        self.serverURL = serverURL
    }

    /// The server could not be reached: no network, no answer, a refused connection.
    public static let unreachable = Self(.unreachable)
    /// The server at `url` could not be reached.
    public static func unreachable(_ url: URL) -> Self { Self(.unreachable, serverURL: url) }
    /// Wrong user name or password.
    public static let invalidCredentials = Self(.invalidCredentials)
    /// Too many failed sign-ins: ``retryAfter`` says when to try again.
    public static let throttled = Self(.throttled)
    /// The server is checking too many sign-ins (503 `SERVER_BUSY`): ``retryAfter``
    /// says when to try again.
    public static let busy = Self(.busy)
    /// The session token is unknown, expired or revoked: sign in again.
    public static let sessionExpired = Self(.sessionExpired)
    /// An administrator locked this device's registration (`TRAFFIC_REG_LOCKED`): its session
    /// ended, and signing in is refused until an administrator unlocks it.
    public static let registrationLocked = Self(.registrationLocked)
    /// An administrator wiped this device's registration (`TRAFFIC_REG_WIPED`): the
    /// user's data must go.
    public static let registrationWiped = Self(.registrationWiped)
    /// The session belongs to another device.
    public static let deviceMismatch = Self(.deviceMismatch)
    /// No such app, or no app for that email domain.
    public static let notFound = Self(.notFound)
    /// The server refused the request (a 4xx not covered above); ``serverCode`` says why.
    public static let refused = Self(.refused)
    /// The server failed (a 5xx).
    public static let serverFailure = Self(.serverFailure)
    /// The answer was not what the API document promises.
    public static let invalidResponse = Self(.invalidResponse)
    /// A call needs a session and the context holds none.
    public static let notSignedIn = Self(.notSignedIn)
    /// What answers at the address could not prove it holds the admin token's hash
    /// (`POST /admin/proof`), so the token was not sent to it: another process took the
    /// port a server used to listen on, or the token belongs to another server.
    public static let serverNotProven = Self(.serverNotProven)
    /// No one has approved the device code yet (`authorization_pending`): poll again.
    public static let authorizationPending = Self(.authorizationPending)
    /// The device polled too soon (`slow_down`): wait 5 seconds more between polls.
    public static let slowDown = Self(.slowDown)
    /// The person at the verification page denied the sign-in (`access_denied`).
    public static let accessDenied = Self(.accessDenied)
    /// The device code expired before anyone approved it (`expired_token`).
    public static let expiredToken = Self(.expiredToken)
    /// The code or refresh token is unknown, spent, expired or revoked (`invalid_grant`):
    /// the person must sign in again.
    public static let invalidGrant = Self(.invalidGrant)
    /// The browser came back with an answer that is not this sign-in's (another `state`,
    /// another issuer): refused before any code in it is used.
    public static let forgedAnswer = Self(.forgedAnswer)

    /// The error for a refused call: the contract's codes (``GangwayProtocol/ErrorCode``,
    /// ``GangwayProtocol/OAuthErrorCode``) decide where they are known; otherwise the status.
    package static func answer(
        status: Int,
        code serverCode: String?,
        message: String?,
        messageCode: String? = nil,
        retryAfter: Duration? = nil
    ) -> Self {
        let sent = messageCode ?? serverCode
        let code: Code
        switch (status, sent.flatMap(ErrorCode.init(rawValue:)), sent.flatMap(OAuthErrorCode.init(rawValue:))) {
        case (403, .registrationLocked?, _): code = .registrationLocked
        case (403, .registrationWiped?, _): code = .registrationWiped
        case (403, .deviceMismatch?, _): code = .deviceMismatch
        case (401, .authFailed?, _): code = .invalidCredentials
        case (503, .serverBusy?, _): code = .busy
        case (400, _, .authorizationPending?): code = .authorizationPending
        case (400, _, .slowDown?): code = .slowDown
        case (400, _, .accessDenied?): code = .accessDenied
        case (400, _, .expiredToken?): code = .expiredToken
        case (400, _, .invalidGrant?): code = .invalidGrant
        case (401, _, .invalidClient?): code = .refused
        case (401, _, _): code = .sessionExpired
        case (429, _, _): code = .throttled
        case (404, _, _): code = .notFound
        case (500..., _, _): code = .serverFailure
        default: code = .refused
        }
        return Self(code, status: status, serverCode: serverCode, serverMessage: message, retryAfter: retryAfter)
    }

    package static func invalidResponse(status: Int?) -> Self { Self(.invalidResponse, status: status) }

    /// Whether trying the same call again later may succeed.
    public var isTransient: Bool {
        code == .unreachable || code == .serverFailure || code == .throttled || code == .busy
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        let detail = [status.map { "HTTP \($0)" }, serverCode].compactMap { $0 }.joined(separator: " ")
        let suffix = detail.isEmpty ? "" : " (\(detail))"
        return summary + suffix
    }

    /// The table's text for the server's code (`service.code.CODE`), when it has one:
    /// preferred over the server's message, which is in the server's language.
    private var serverCodeText: String? {
        serverCode.flatMap { StringTable.current.entries["service.code.\($0)"] }
    }

    /// What happened, in a sentence for people, in the string table's language: the
    /// server's code picks the text, and its message (for logs and operators) is used
    /// only for a refusal the table has no text for.
    public var summary: String {
        switch code {
        case .unreachable:
            serverURL.map { StringTable.text("service.unreachable.named", $0.absoluteString) }
                ?? StringTable.text("service.unreachable.summary")
        case .invalidCredentials: StringTable.text("service.invalidCredentials.summary")
        case .throttled: StringTable.text("service.throttled.summary")
        case .busy: StringTable.text("service.busy.summary")
        case .sessionExpired: StringTable.text("service.sessionExpired.summary")
        case .registrationLocked: StringTable.text("service.registrationLocked.summary")
        case .registrationWiped: StringTable.text("service.registrationWiped.summary")
        case .deviceMismatch: StringTable.text("service.deviceMismatch.summary")
        case .notFound: StringTable.text("service.notFound.summary")
        case .refused: serverCodeText ?? serverMessage ?? StringTable.text("service.refused.summary")
        case .serverFailure: StringTable.text("service.serverFailure.summary")
        case .invalidResponse: StringTable.text("service.invalidResponse.summary")
        case .notSignedIn: StringTable.text("service.notSignedIn.summary")
        case .serverNotProven: StringTable.text("service.serverNotProven.summary")
        case .authorizationPending: StringTable.text("service.authorizationPending.summary")
        case .slowDown: StringTable.text("service.slowDown.summary")
        case .accessDenied: StringTable.text("service.accessDenied.summary")
        case .expiredToken: StringTable.text("service.expiredToken.summary")
        case .invalidGrant: StringTable.text("service.invalidGrant.summary")
        case .forgedAnswer: StringTable.text("service.forgedAnswer.summary")
        }
    }

    /// What the user can do about it.
    public var advice: String {
        switch code {
        case .unreachable: StringTable.text("service.unreachable.advice")
        case .invalidCredentials: StringTable.text("service.invalidCredentials.advice")
        case .throttled, .busy:
            retryAfter.map { StringTable.text("service.retryIn", Int($0.components.seconds)) }
                ?? StringTable.text("service.waitAMoment")
        case .sessionExpired, .notSignedIn: StringTable.text("service.sessionExpired.advice")
        case .registrationLocked: StringTable.text("service.registrationLocked.advice")
        case .registrationWiped: StringTable.text("service.registrationWiped.advice")
        case .deviceMismatch: StringTable.text("service.deviceMismatch.advice")
        case .notFound: StringTable.text("service.notFound.advice")
        case .refused, .invalidResponse: StringTable.text("service.refused.advice")
        case .serverFailure: StringTable.text("service.serverFailure.advice")
        case .serverNotProven: StringTable.text("service.serverNotProven.advice")
        case .authorizationPending: StringTable.text("service.authorizationPending.advice")
        case .slowDown: StringTable.text("service.slowDown.advice")
        case .accessDenied, .expiredToken: StringTable.text("service.accessDenied.advice")
        case .invalidGrant, .forgedAnswer: StringTable.text("service.invalidGrant.advice")
        }
    }
}

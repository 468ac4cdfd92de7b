import GangwayProtocol
import HTTPTypes

/// An OAuth 2.0 error answer (RFC 6749 §5.2, RFC 8628 §3.5, RFC 7009 §2.2.1), which the
/// gateway renders as `{"error": …, "error_description": …}` with `Cache-Control:
/// no-store`. Descriptions are for people and never hold a code or token.
struct OAuthError: Error, Sendable, Equatable {
    var error: OAuthErrorCode
    var description: String
    var status: HTTPResponse.Status
    /// Seconds to wait, sent as `Retry-After`.
    var retryAfter: Int?

    init(
        _ error: OAuthErrorCode,
        _ description: String,
        status: HTTPResponse.Status = .badRequest,
        retryAfter: Int? = nil
    ) {
        self.error = error
        self.description = description
        self.status = status
        self.retryAfter = retryAfter
    }

    /// Too many device sign-ins started from one address for one app (429, with
    /// `Retry-After`): RFC 8628 leaves such limits to the server.
    static func throttled(retryAfter: Int) -> OAuthError {
        OAuthError(
            .temporarilyUnavailable,
            "Too many sign-ins were started from this address; try again in \(retryAfter) seconds.",
            status: .tooManyRequests,
            retryAfter: retryAfter
        )
    }

    static func invalidRequest(_ description: String) -> OAuthError { OAuthError(.invalidRequest, description) }

    static let invalidClient = OAuthError(
        .invalidClient,
        "The client_id must be the app's ID.",
        status: .unauthorized
    )
    static let notOAuth = OAuthError(
        .unauthorizedClient,
        "This app signs people in with a password, not OAuth 2.0."
    )
    static let invalidGrant = OAuthError(
        .invalidGrant,
        "The code or token is unknown, expired, already used or revoked."
    )
    static let unsupportedGrant = OAuthError(
        .unsupportedGrantType,
        "The grant types are authorization_code, urn:ietf:params:oauth:grant-type:device_code and refresh_token."
    )
    static let noSuchApp = OAuthError(
        .invalidRequest,
        "There is no app here that signs people in with OAuth 2.0.",
        status: .notFound
    )
    static let pending = OAuthError(.authorizationPending, "No one has approved the user code yet.")
    static let slowDown = OAuthError(.slowDown, "Poll less often: wait 5 seconds more between polls.")
    static let denied = OAuthError(.accessDenied, "The person at the verification page denied the request.")
    /// Tokens for a registration an administrator locked: refused until they unlock it.
    static let registrationLocked = OAuthError(
        .accessDenied,
        "An administrator locked this device; it is served again once an administrator unlocks it."
    )
    static let expired = OAuthError(.expiredToken, "The device code expired; start again.")
    /// The app's OpenID Connect provider could not be reached to renew its grant: the
    /// refresh token stays good, and the device tries again later.
    static let providerUnavailable = OAuthError(
        .temporarilyUnavailable,
        "The app's sign-in service cannot be reached; try again later.",
        status: .serviceUnavailable
    )
    /// A bearer token that opens nothing (RFC 6750 §3.1): answered with
    /// `WWW-Authenticate: Bearer error="invalid_token"`.
    static let invalidToken = OAuthError(
        .invalidToken,
        "The access token is missing, unknown, expired or revoked.",
        status: .unauthorized
    )
}

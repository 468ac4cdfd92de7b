/// The `error` of every OAuth 2.0 error answer the server gives (RFC 6749 §5.2, RFC 8628
/// §3.5, RFC 6750 §3.1; the `OAuthError` schema of `openapi.json`, whose `enum` a test
/// holds to this list). Clients switch on it; one they do not know goes by the status.
public enum OAuthErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The request lacks a parameter, repeats one, or is otherwise malformed.
    case invalidRequest = "invalid_request"
    /// The `client_id` is not the app's.
    case invalidClient = "invalid_client"
    /// The code, device code or refresh token is unknown, spent, expired or revoked.
    case invalidGrant = "invalid_grant"
    /// The app does not sign people in with OAuth 2.0.
    case unauthorizedClient = "unauthorized_client"
    /// The grant type is not one the server takes.
    case unsupportedGrantType = "unsupported_grant_type"
    /// No one has approved the device's user code yet: poll again.
    case authorizationPending = "authorization_pending"
    /// The device polls too often: wait 5 seconds more between polls.
    case slowDown = "slow_down"
    /// The person at the verification page denied the sign-in.
    case accessDenied = "access_denied"
    /// The device code expired before anyone approved it.
    case expiredToken = "expired_token"
    /// The bearer token opens nothing (missing, unknown, expired or revoked).
    case invalidToken = "invalid_token"
    /// Try again later: too many sign-ins started, or the app's provider is unreachable.
    case temporarilyUnavailable = "temporarily_unavailable"
    /// Something failed on the server.
    case serverError = "server_error"
}

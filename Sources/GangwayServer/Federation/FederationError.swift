/// Why a sign-in through an app's OpenID Connect provider failed. The description is
/// for the operator's log and the person's page: it names what failed, never a code,
/// token or secret. New cases may be added.
struct FederationError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        /// The provider could not be reached, or answered with a server error.
        case unavailable
        /// The provider's discovery document or key set is not what OpenID Connect
        /// requires (another issuer, no token endpoint, no usable key).
        case misconfigured
        /// The provider's token endpoint refused the request with this OAuth error
        /// (`invalid_grant`: the code or refresh token is no longer good there).
        case refused(String)
        /// The ID token failed a check: signature, issuer, audience, expiry, nonce.
        case invalidIDToken
    }

    let code: Code
    let description: String

    init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    static func unavailable(_ description: String) -> Self { Self(.unavailable, description) }
    static func misconfigured(_ description: String) -> Self { Self(.misconfigured, description) }
    static func invalidIDToken(_ description: String) -> Self { Self(.invalidIDToken, description) }
}

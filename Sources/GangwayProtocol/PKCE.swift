import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636) as Gangway uses it, S256 only: the device sends
/// the challenge with its authorization request, the verifier with its token request, and
/// the server compares. One contract for both sides.
public enum PKCE {
    /// The only challenge method taken; `plain` would give the code away with its request.
    public static let method = "S256"

    /// BASE64URL(SHA-256(verifier)).
    public static func challenge(for verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded
    }

    /// Whether `verifier` is one RFC 7636 §4.1 allows: 43 to 128 unreserved characters.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && PercentEncoding.isUnreserved(verifier)
    }

    /// Whether `challenge` can be an S256 challenge: the base64url of 32 bytes.
    public static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && Data(base64URLEncoded: challenge)?.count == 32
    }
}

/// The grant types of the token endpoint, as the server takes them and the device sends them.
public enum OAuthGrantType: String, Sendable, CaseIterable {
    case authorizationCode = "authorization_code"
    case deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
    case refreshToken = "refresh_token"
}

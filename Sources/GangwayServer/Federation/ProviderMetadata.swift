import Foundation

/// What the server needs of an OpenID Connect provider's discovery document
/// (`{issuer}/.well-known/openid-configuration`, OpenID Connect Discovery §3).
struct ProviderMetadata: Sendable, Hashable, Decodable {
    var issuer: String
    var authorizationEndpoint: String
    var tokenEndpoint: String
    var jwksURI: String
    var revocationEndpoint: String?
    /// `nil`: `client_secret_basic`, the default (RFC 8414 §2).
    var tokenEndpointAuthMethods: [String]?

    private enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
    }

    /// Whether a client secret goes in the form (`client_secret_post`) rather than in
    /// the `Authorization` header: only when the provider says it takes no other.
    var postsClientSecret: Bool {
        guard let methods = tokenEndpointAuthMethods else { return false }
        return !methods.contains("client_secret_basic") && methods.contains("client_secret_post")
    }

    /// The document's URL for `issuer` (OpenID Connect Discovery §4: the issuer without a
    /// trailing slash, then the well-known path).
    static func url(issuer: String) -> String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }

    /// The endpoints a sign-in uses, each an `https` URL (or `http` on a loopback
    /// address, as ``GangwayProtocol/IssuerURL`` allows the issuer).
    func checked(issuer expected: String) throws(FederationError) -> Self {
        // OpenID Connect Discovery §4.3: exactly the issuer asked for, or an impostor.
        guard issuer == expected else {
            throw .misconfigured("the discovery document names issuer \(issuer), not \(expected)")
        }
        for (name, endpoint) in [
            ("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint),
            ("jwks_uri", jwksURI),
        ] where !Self.isAllowed(endpoint) {
            throw .misconfigured("the discovery document's \(name) is not an https URL")
        }
        return self
    }

    private static func isAllowed(_ endpoint: String) -> Bool {
        guard let url = URL(string: endpoint), let host = url.host else { return false }
        if url.scheme == "https" { return true }
        return url.scheme == "http" && ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
    }
}

import Foundation

/// How an app's people prove who they are, as the admin set it (`gangway admin auth`):
/// kept with the app, its client secret sealed under the server's key (``ServerKey``),
/// so neither the database nor the admin API ever holds it in the clear.
public struct AppAuthentication: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A user name and password kept by this server.
        case basic
        /// OAuth 2.0, with this server as the app's authorization server.
        case oauth2
    }

    public var type: Kind
    /// The OpenID Connect provider people sign in with; `nil`: this server's own users.
    public var provider: IdentityProvider?
    /// Where the authorization code grant may send a code (``GangwayProtocol/RedirectURI``):
    /// the app's only clients, since each app is one public client.
    public var redirectURIs: [String]

    public init(type: Kind = .basic, provider: IdentityProvider? = nil, redirectURIs: [String] = []) {
        self.type = type
        self.provider = provider
        self.redirectURIs = redirectURIs
    }

    private enum CodingKeys: String, CodingKey {
        case type, provider, redirectURIs
    }

    /// Reads what an older server wrote too, which had no redirect URIs.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(Kind.self, forKey: .type)
        provider = try container.decodeIfPresent(IdentityProvider.self, forKey: .provider)
        redirectURIs = try container.decodeIfPresent([String].self, forKey: .redirectURIs) ?? []
    }

    /// A new app's: a user name and password.
    public static let basic = AppAuthentication()
}

/// An external OpenID Connect provider, named by its issuer.
public struct IdentityProvider: Sendable, Hashable, Codable {
    /// The issuer URL, exactly as the provider writes it in its tokens' `iss` (OpenID
    /// Connect Discovery compares it character for character, so it is kept as given).
    public var issuer: String
    public var clientID: String
    /// Whether a person the provider knows and this server does not gets a user at
    /// their first sign-in; otherwise an admin links them first.
    public var createsUsers: Bool
    /// The client secret, sealed under the server's key for this app (``sealPurpose(appID:)``);
    /// `nil` for a public client.
    public var sealedClientSecret: Data?
    /// Which user attributes the provider's ID token sets, by attribute: the claim that
    /// holds its values. `nil` (as rows written before it read): none.
    public var attributeClaims: [String: String]?

    public init(
        issuer: String,
        clientID: String,
        createsUsers: Bool = false,
        sealedClientSecret: Data? = nil,
        attributeClaims: [String: String]? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.createsUsers = createsUsers
        self.sealedClientSecret = sealedClientSecret
        self.attributeClaims = attributeClaims
    }

    /// What a sealed client secret is bound to: opened for another app, it fails.
    package static func sealPurpose(appID: String) -> String { "oidc-client-secret:\(appID)" }

}

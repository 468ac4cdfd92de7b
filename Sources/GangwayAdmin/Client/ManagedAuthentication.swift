import Foundation
import GangwayClient
import GangwayPolicy
import GangwayProtocol

/// How an app's people sign in, as the server's admin API shows it: never the provider's
/// client secret, only whether one is kept. ``AdminClient`` makes it from the server's
/// answers.
public struct ManagedAuthentication: Sendable, Hashable {
    /// An external OpenID Connect provider.
    public struct Provider: Sendable, Hashable {
        public var issuer: String
        public var clientID: String
        /// Whether a person the provider knows gets a user at their first sign-in.
        public var createsUsers: Bool
        public var hasClientSecret: Bool
        /// Where the provider sends people back to the server: the admin registers it at
        /// the provider, as a redirect URI of the client. `nil` from an older server.
        public var redirectURI: String?
    }

    public var type: Components.Schemas.AuthenticationType
    /// `nil`: people sign in as the server's own users.
    public var provider: Provider?
    /// Where the authorization code grant may send a code.
    public var redirectURIs: [String]

    init(_ wire: Components.Schemas.AppAuthentication) {
        type = wire._type
        redirectURIs = wire.redirectURIs
        provider = wire.provider.map {
            Provider(
                issuer: $0.issuer,
                clientID: $0.clientID,
                createsUsers: $0.createsUsers,
                hasClientSecret: $0.hasClientSecret,
                redirectURI: $0.redirectURI
            )
        }
    }
}

/// An app's whole authentication, for ``AdminClient/setAuthentication(_:app:)``.
public struct AuthenticationChange: Sendable, Hashable {
    /// The provider to use. A `clientSecret` of `nil` keeps the secret the server holds
    /// for the same issuer and client ID (none for another client).
    public struct Provider: Sendable, Hashable {
        public var issuer: String
        public var clientID: String
        public var clientSecret: Secret?
        public var createsUsers: Bool

        public init(issuer: String, clientID: String, clientSecret: Secret? = nil, createsUsers: Bool = false) {
            self.issuer = issuer
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.createsUsers = createsUsers
        }
    }

    public var type: Components.Schemas.AuthenticationType
    /// `nil`: the server's own users.
    public var provider: Provider?
    /// Where the authorization code grant may send a code (``GangwayProtocol/RedirectURI``).
    public var redirectURIs: [String]

    public init(type: Components.Schemas.AuthenticationType, provider: Provider? = nil, redirectURIs: [String] = []) {
        self.type = type
        self.provider = provider
        self.redirectURIs = redirectURIs
    }

    var wire: Components.Schemas.AppAuthenticationChange {
        .init(
            _type: type,
            provider: provider.map {
                .init(
                    issuer: $0.issuer,
                    clientID: $0.clientID,
                    clientSecret: $0.clientSecret?.value,
                    createsUsers: $0.createsUsers
                )
            },
            redirectURIs: redirectURIs.isEmpty ? nil : redirectURIs
        )
    }
}

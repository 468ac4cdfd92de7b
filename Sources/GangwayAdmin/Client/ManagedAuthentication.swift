import Foundation
import GangwayClient
import GangwayPolicy
import GangwayProtocol

/// How an app's people sign in, as the server's admin API shows it: the API's own type,
/// never the provider's client secret, only whether one is kept (`hasClientSecret`). A
/// provider's `redirectURI` is where it sends people back to the server: the admin
/// registers it at the provider, as a redirect URI of the client (`nil` from an older
/// server). `redirectURIs` are where the authorization code grant may send a code.
public typealias ManagedAuthentication = Components.Schemas.AppAuthentication

extension Components.Schemas.AppAuthentication {
    /// How people sign in; the provider is `nil` when they sign in as the server's own users.
    public var type: Components.Schemas.AuthenticationType { _type }
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
        /// Which user attributes the provider's ID token sets: the claim that holds each
        /// attribute's values, by attribute.
        public var attributeClaims: [String: String]

        public init(
            issuer: String,
            clientID: String,
            clientSecret: Secret? = nil,
            createsUsers: Bool = false,
            attributeClaims: [String: String] = [:]
        ) {
            self.issuer = issuer
            self.clientID = clientID
            self.clientSecret = clientSecret
            self.createsUsers = createsUsers
            self.attributeClaims = attributeClaims
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
                    createsUsers: $0.createsUsers,
                    attributeClaims: $0.attributeClaims.isEmpty ? nil : .init(additionalProperties: $0.attributeClaims)
                )
            },
            redirectURIs: redirectURIs.isEmpty ? nil : redirectURIs
        )
    }
}

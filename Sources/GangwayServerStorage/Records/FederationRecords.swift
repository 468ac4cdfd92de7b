import Foundation

/// A sign-in sent on to an app's OpenID Connect provider and not back yet: what the
/// server sent (the `state`, kept as its SHA-256; the nonce; its PKCE verifier), the
/// browser that started it (the SHA-256 of a cookie only that browser holds), and what
/// the person was doing when it started. Taken once, when the provider sends the
/// browser back.
public struct FederatedSignInRecord: Sendable, Hashable, Codable {
    public var stateHash: Data
    public var appID: String
    public var browserHash: Data
    public var nonce: String
    public var codeVerifier: String
    /// What the sign-in finishes, as JSON: an authorization request of the code grant,
    /// or the user code of a device grant.
    public var origin: String
    public var createdAt: Date
    public var expiresAt: Date

    public init(
        stateHash: Data,
        appID: String,
        browserHash: Data,
        nonce: String,
        codeVerifier: String,
        origin: String,
        createdAt: Date,
        expiresAt: Date
    ) {
        self.stateHash = stateHash
        self.appID = appID
        self.browserHash = browserHash
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.origin = origin
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What an app's OpenID Connect provider granted at a federated sign-in, kept with the
/// tokens Gangway issued for it: each refresh of those tokens refreshes at the provider
/// first, so a person the provider turned away (blocked, signed out, password changed)
/// loses the app at the device's next refresh, not a month later.
///
/// Created with the code or device grant it finishes (``originHash``: the SHA-256 of the
/// authorization code or device code), then bound to the refresh token family the
/// redemption starts.
public struct ProviderGrantRecord: Sendable, Hashable, Codable {
    public var originHash: Data
    public var familyID: String?
    public var appID: String
    public var username: String
    public var issuer: String
    /// The provider's refresh token, sealed under the server's key for this app; `nil`
    /// when the provider gave none (the sign-in then lasts as long as its access token).
    public var sealedRefreshToken: Data?
    /// When the provider's access token ends: Gangway's access tokens of this grant end
    /// no later.
    public var accessExpiresAt: Date
    public var createdAt: Date

    public init(
        originHash: Data,
        familyID: String? = nil,
        appID: String,
        username: String,
        issuer: String,
        sealedRefreshToken: Data?,
        accessExpiresAt: Date,
        createdAt: Date
    ) {
        self.originHash = originHash
        self.familyID = familyID
        self.appID = appID
        self.username = username
        self.issuer = issuer
        self.sealedRefreshToken = sealedRefreshToken
        self.accessExpiresAt = accessExpiresAt
        self.createdAt = createdAt
    }
}

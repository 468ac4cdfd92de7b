import Foundation
import GangwayFlows

/// A signed-in session on the server: its token, who signed in, and until when.
public struct ServerSession: Sendable, Hashable {
    /// The bearer token.
    public var token: SessionToken
    /// Who signed in.
    public var user: ServerUser
    /// When the server stops accepting the token.
    public var expiresAt: Date
    /// A new device cookie the server gave this device for this user, to present at the
    /// user's next sign-in here (see ``MobileServicesClient/signIn(appID:username:password:deviceID:deviceCookie:)``).
    public var deviceCookie: String?
    /// For an `oauth2` app: the one-use token that gets the next session when this one
    /// ends (see ``MobileServicesClient/refreshTokens(appID:refreshToken:)``).
    public var refreshToken: RefreshToken?

    public init(
        token: SessionToken,
        user: ServerUser,
        expiresAt: Date,
        deviceCookie: String? = nil,
        refreshToken: RefreshToken? = nil
    ) {
        self.token = token
        self.user = user
        self.expiresAt = expiresAt
        self.deviceCookie = deviceCookie
        self.refreshToken = refreshToken
    }

    /// The session the token endpoint's `tokens` open for `user`.
    public init(_ tokens: OAuthTokens, user: ServerUser) {
        self.init(
            token: tokens.accessToken,
            user: user,
            expiresAt: tokens.expiresAt,
            refreshToken: tokens.refreshToken
        )
    }
}

extension FlowInfoKey where Value == ServerSession {
    /// The session the authentication step opened, or the one restored from the store.
    public static var serverSession: Self { Self("gangway.serverSession") }
}

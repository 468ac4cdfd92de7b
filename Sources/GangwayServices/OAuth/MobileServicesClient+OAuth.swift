import Foundation
import GangwayFlows
import GangwayProtocol
import OpenAPIRuntime

/// The device's side of an `oauth2` app's authorization server: the device authorization
/// grant (RFC 8628), refresh (rotating at each use) and revocation (RFC 7009). The app is
/// its own public client: `client_id` is the app's ID.
extension MobileServicesClient {
    /// Starts a device authorization for `deviceID`, the device whose session and
    /// registration the tokens will be.
    public func startDeviceAuthorization(
        appID: String,
        deviceID: String
    ) async throws(ServiceError) -> DeviceAuthorization {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client().authorizeDevice(
                path: .init(appID: appID),
                body: .urlEncodedForm(.init(clientId: appID, deviceId: deviceID))
            )
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json }
            guard let url = try? WebURL.parse(body.verificationUri), body.expiresIn > 0 else {
                throw .invalidResponse(status: 200)
            }
            return DeviceAuthorization(
                deviceCode: body.deviceCode,
                userCode: body.userCode,
                verificationURL: url,
                verificationURLComplete: try? WebURL.parse(body.verificationUriComplete),
                expiresAt: now().addingTimeInterval(TimeInterval(body.expiresIn)),
                interval: .seconds(max(1, body.interval))
            )
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The app's authorization server, from its RFC 8414 metadata: its issuer and where
    /// its sign-in page is.
    public func authorizationServer(
        appID: String
    ) async throws(ServiceError) -> (issuer: String, authorizationEndpoint: URL) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client().getAuthorizationServerMetadata(path: .init(appID: appID))
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json }
            guard let endpoint = try? WebURL.parse(body.authorizationEndpoint) else {
                throw .invalidResponse(status: 200)
            }
            return (body.issuer, endpoint)
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Redeems an authorization code, with the redirect URI its sign-in page was built
    /// for and the PKCE verifier whose S256 challenge the page carried.
    /// - Throws: ``ServiceError/invalidGrant`` for a code that is unknown, used, expired,
    ///   or does not match.
    public func redeemAuthorizationCode(
        appID: String,
        code: String,
        redirectURI: String,
        verifier: String
    ) async throws(ServiceError) -> OAuthTokens {
        try await requestTokens(
            appID: appID,
            form: .init(
                grantType: OAuthGrantType.authorizationCode.rawValue,
                clientId: appID,
                code: code,
                redirectUri: redirectURI,
                codeVerifier: verifier
            )
        )
    }

    /// Asks once for the tokens of an approved device code.
    /// - Throws: ``ServiceError/authorizationPending`` and ``ServiceError/slowDown`` while
    ///   no one approved it; ``ServiceError/accessDenied``, ``ServiceError/expiredToken``
    ///   or ``ServiceError/invalidGrant`` when it will never be.
    public func redeemDeviceCode(appID: String, deviceCode: String) async throws(ServiceError) -> OAuthTokens {
        try await requestTokens(
            appID: appID,
            form: .init(grantType: OAuthGrantType.deviceCode.rawValue, clientId: appID, deviceCode: deviceCode)
        )
    }

    /// Spends `refreshToken` for a new access token and refresh token.
    /// - Throws: ``ServiceError/invalidGrant`` when it was spent, revoked or expired, its
    ///   user blocked or its registration locked or wiped: the person signs in again.
    public func refreshTokens(appID: String, refreshToken: RefreshToken) async throws(ServiceError) -> OAuthTokens {
        try await requestTokens(
            appID: appID,
            form: .init(
                grantType: OAuthGrantType.refreshToken.rawValue,
                clientId: appID,
                refreshToken: refreshToken.value
            )
        )
    }

    private func requestTokens(
        appID: String,
        form: Components.Schemas.TokenRequest
    ) async throws(ServiceError) -> OAuthTokens {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client().requestToken(path: .init(appID: appID), body: .urlEncodedForm(form))
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json }
            return OAuthTokens(
                accessToken: SessionToken(body.accessToken),
                refreshToken: RefreshToken(body.refreshToken),
                expiresAt: now().addingTimeInterval(TimeInterval(body.expiresIn))
            )
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Revokes a refresh token, with its whole family and the sessions it opened.
    public func revoke(appID: String, refreshToken: RefreshToken) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client().revokeToken(
                path: .init(appID: appID),
                body: .urlEncodedForm(.init(token: refreshToken.value, tokenTypeHint: "refresh_token", clientId: appID))
            )
        }
        switch output {
        case .ok: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Who the access token was issued to.
    public func userInfo(appID: String, token: SessionToken) async throws(ServiceError) -> ServerUser {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client(token: token).getUserInfo(path: .init(appID: appID))
        }
        switch output {
        case .ok(let ok):
            let body = try ServiceCall.decode { try ok.body.json }
            return ServerUser(id: body.sub, displayName: body.name)
        default: throw ServiceCall.unexpected(output)
        }
    }
}

import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// OAuth 2.0 and OpenID Connect: metadata, keys, the device grant, tokens and their
/// refresh and revocation, and the user info.
struct OAuthHandler: APIHandler {
    let services: APIServices

    /// How long a device code and its user code live.
    static let deviceCodeLifetime: TimeInterval = 10 * 60
    /// The first wait between polls, in seconds; each `slow_down` adds 5 (RFC 8628 §3.5).
    static let pollInterval = 5
    /// How long a refresh token lives unused.
    static let refreshTokenLifetime: TimeInterval = 30 * 24 * 60 * 60
    /// How long after a refresh token is spent the same client may spend it again: a
    /// device that refreshes twice at once (two requests racing at launch) keeps its
    /// session, where a copy used from elsewhere, or later, still ends the family.
    static let refreshRetryGrace: TimeInterval = 10

    /// The app's issuer: the server's public URL followed by `/apps/{appID}`.
    func issuer(of app: AppRecord) -> String { "\(settings.publicURL.value)/apps/\(app.id)" }

    /// The issuer and endpoints an oauth2 app's metadata (`kind`: OAuth or OpenID) lists;
    /// an app that signs people in with a password has none.
    private func metadataEndpoints(
        _ appID: String,
        _ kind: String
    ) async throws -> (issuer: String, endpoints: OAuthPaths.Endpoints) {
        let app = try await app(appID)
        guard app.authentication.type == .oauth2 else {
            throw APIError.notFound(.notOAuth2, "This app signs people in with a password; it has no \(kind) metadata.")
        }
        let issuer = issuer(of: app)
        return (issuer, OAuthPaths.Endpoints(issuer: issuer))
    }

    func getAuthorizationServerMetadata(
        _ input: Operations.GetAuthorizationServerMetadata.Input
    ) async throws -> Operations.GetAuthorizationServerMetadata.Output {
        let (issuer, endpoints) = try await metadataEndpoints(input.path.appID, "OAuth")
        return .ok(
            .init(
                body: .json(
                    .init(
                        issuer: issuer,
                        tokenEndpoint: endpoints.token,
                        deviceAuthorizationEndpoint: endpoints.deviceAuthorization,
                        revocationEndpoint: endpoints.revocation,
                        grantTypesSupported: OAuthGrantType.allCases.map(\.rawValue),
                        responseTypesSupported: ["code"],
                        tokenEndpointAuthMethodsSupported: ["none"],
                        revocationEndpointAuthMethodsSupported: ["none"],
                        authorizationEndpoint: endpoints.authorization,
                        codeChallengeMethodsSupported: [PKCE.method],
                        authorizationResponseIssParameterSupported: true
                    )
                )
            )
        )
    }

    func getOpenIDConfiguration(
        _ input: Operations.GetOpenIDConfiguration.Input
    ) async throws -> Operations.GetOpenIDConfiguration.Output {
        let (issuer, endpoints) = try await metadataEndpoints(input.path.appID, "OpenID")
        return .ok(
            .init(
                body: .json(
                    .init(
                        issuer: issuer,
                        authorizationEndpoint: endpoints.authorization,
                        tokenEndpoint: endpoints.token,
                        userinfoEndpoint: endpoints.userinfo,
                        jwksUri: endpoints.jwks,
                        revocationEndpoint: endpoints.revocation,
                        deviceAuthorizationEndpoint: endpoints.deviceAuthorization,
                        responseTypesSupported: ["code"],
                        subjectTypesSupported: ["public"],
                        idTokenSigningAlgValuesSupported: ["ES256"],
                        codeChallengeMethodsSupported: [PKCE.method],
                        grantTypesSupported: OAuthGrantType.allCases.map(\.rawValue),
                        scopesSupported: ["openid", "profile"],
                        claimsSupported: ["iss", "sub", "aud", "exp", "iat", "nonce", "name", "preferred_username"],
                        tokenEndpointAuthMethodsSupported: ["none"]
                    )
                )
            )
        )
    }

    func getJSONWebKeySet(_ input: Operations.GetJSONWebKeySet.Input) async throws -> Operations.GetJSONWebKeySet.Output
    {
        let app: AppRecord
        do {
            app = try await self.app(input.path.appID)
        } catch {
            throw error == .appNotFound ? OAuthError.noSuchApp : error
        }
        guard app.authentication.type == .oauth2 else { throw OAuthError.noSuchApp }
        return .ok(
            .init(
                body: .json(.init(keys: try await perform { try await keys.idTokens.published(at: now()) }.map(\.jwk)))
            )
        )
    }

    func authorizeDevice(_ input: Operations.AuthorizeDevice.Input) async throws -> Operations.AuthorizeDevice.Output {
        guard case .urlEncodedForm(let body) = input.body else { throw OAuthError.invalidRequest("Send a form.") }
        let app = try await oauthApp(input.path.appID, clientID: body.clientId)
        let deviceID = body.deviceId ?? "oauth-\(Self.randomBytes(16).base64URLEncoded)"
        if let problem = IdentifierRule.identifier.problem(deviceID) {
            throw OAuthError.invalidRequest("device_id \(problem).")
        }
        try await throttle.admitDeviceAuthorization(
            appID: app.id,
            address: RequestInfo.current.clientAddress(trusting: settings.trustedProxies)
        )
        let deviceCode = BearerToken.make()
        let time = now()
        var generator = SystemRandomNumberGenerator()
        // A code already given out is drawn again; with 20⁸ codes, twice at most in practice.
        for _ in 0..<5 {
            let userCode = UserCode.make(using: &generator)
            let grant = DeviceGrantRecord(
                deviceCodeHash: BearerToken.hash(deviceCode),
                userCode: userCode,
                appID: app.id,
                deviceID: deviceID,
                createdAt: time,
                expiresAt: time.addingTimeInterval(Self.deviceCodeLifetime),
                interval: Self.pollInterval
            )
            do {
                try await storage.insertDeviceGrant(grant)
            } catch {
                if error.code == .duplicate { continue }
                throw APIError.storage(error)
            }
            logger.info("device authorization started", metadata: ["app": "\(app.id)"])
            let verification = OAuthPaths.Endpoints(issuer: issuer(of: app)).verification
            return .ok(
                .init(
                    headers: .init(cacheControl: "no-store"),
                    body: .json(
                        .init(
                            deviceCode: deviceCode,
                            userCode: UserCode.display(userCode),
                            verificationUri: verification,
                            verificationUriComplete: "\(verification)?user_code=\(UserCode.display(userCode))",
                            expiresIn: Int(Self.deviceCodeLifetime),
                            interval: Self.pollInterval
                        )
                    )
                )
            )
        }
        throw APIError.storage(StorageError(.unavailable, "no free user code was found"))
    }

    func requestToken(_ input: Operations.RequestToken.Input) async throws -> Operations.RequestToken.Output {
        guard case .urlEncodedForm(let body) = input.body else { throw OAuthError.invalidRequest("Send a form.") }
        let grant = OAuthGrantType(rawValue: body.grantType)
        do {
            let answer = try await token(body, grant: grant, appID: input.path.appID)
            services.metrics.tokenGrant(grant?.rawValue ?? "other", outcome: "issued")
            return answer
        } catch let error as OAuthError {
            services.metrics.tokenGrant(grant?.rawValue ?? "other", outcome: error.error.rawValue)
            throw error
        } catch {
            services.metrics.tokenGrant(grant?.rawValue ?? "other", outcome: "failed")
            throw error
        }
    }

    /// The tokens a grant of `grant` earns.
    private func token(
        _ body: Components.Schemas.TokenRequest,
        grant: OAuthGrantType?,
        appID: String
    ) async throws -> Operations.RequestToken.Output {
        let app = try await oauthApp(appID, clientID: body.clientId)
        let tokens: Components.Schemas.TokenResponse
        switch grant {
        case .authorizationCode:
            guard let code = body.code, !code.isEmpty, let redirectURI = body.redirectUri,
                let verifier = body.codeVerifier
            else { throw OAuthError.invalidRequest("code, redirect_uri and code_verifier are required.") }
            tokens = try await redeemAuthorizationCode(code, redirectURI: redirectURI, verifier: verifier, app: app)
        case .deviceCode:
            guard let code = body.deviceCode, !code.isEmpty else {
                throw OAuthError.invalidRequest("device_code is missing.")
            }
            tokens = try await redeemDeviceCode(code, app: app)
        case .refreshToken:
            guard let token = body.refreshToken, !token.isEmpty else {
                throw OAuthError.invalidRequest("refresh_token is missing.")
            }
            tokens = try await rotateRefreshToken(token, app: app)
        case nil:
            throw OAuthError.unsupportedGrant
        }
        return .ok(.init(headers: .init(cacheControl: "no-store"), body: .json(tokens)))
    }

    func revokeToken(_ input: Operations.RevokeToken.Input) async throws -> Operations.RevokeToken.Output {
        guard case .urlEncodedForm(let body) = input.body else { throw OAuthError.invalidRequest("Send a form.") }
        let app = try await oauthApp(input.path.appID, clientID: body.clientId)
        let hash = BearerToken.hash(body.token)
        if let refresh = try await perform({ try await storage.refreshToken(tokenHash: hash) }), refresh.appID == app.id
        {
            try await perform { try await storage.revokeRefreshFamily(refresh.familyID) }
            logger.info("refresh token revoked", metadata: ["app": "\(app.id)"])
        } else if let session = try await perform({ try await storage.session(tokenHash: hash) }),
            session.appID == app.id
        {
            try await perform { try await storage.revokeSession(tokenHash: hash) }
            logger.info("access token revoked", metadata: ["app": "\(app.id)"])
        }
        return .ok(.init())
    }

    func getUserInfo(_ input: Operations.GetUserInfo.Input) async throws -> Operations.GetUserInfo.Output {
        // Without a token there is nothing to say, whatever the app (RFC 6750 §3.1).
        guard RequestInfo.current.bearerToken != nil else { throw OAuthError.invalidToken }
        let app = try await oauthApp(input.path.appID, clientID: input.path.appID)
        let caller: Caller
        do {
            caller = try await authenticate(appID: app.id, checksDevice: false)
        } catch {
            guard error == .unauthorized || error == .tokenExpired else { throw error }
            throw OAuthError.invalidToken
        }
        guard let user = try await perform({ try await storage.user(named: caller.session.username) }), !user.blocked
        else { throw OAuthError.invalidToken }
        return .ok(
            .init(
                headers: .init(cacheControl: "no-store"),
                body: .json(.init(sub: user.username, name: user.displayName, preferredUsername: user.username))
            )
        )
    }

    /// The app, when it is an oauth2 app and `clientID` is its ID.
    private func oauthApp(_ appID: String, clientID: String?) async throws -> AppRecord {
        let app: AppRecord
        do {
            app = try await self.app(appID)
        } catch {
            throw error == .appNotFound ? OAuthError.invalidClient : error
        }
        guard clientID == app.id else { throw OAuthError.invalidClient }
        guard app.authentication.type == .oauth2 else { throw OAuthError.notOAuth }
        return app
    }

    private func redeemDeviceCode(_ code: String, app: AppRecord) async throws -> Components.Schemas.TokenResponse {
        guard var grant = try await perform({ try await storage.deviceGrant(deviceCodeHash: BearerToken.hash(code)) }),
            grant.appID == app.id
        else { throw OAuthError.invalidGrant }
        let time = now()
        guard grant.expiresAt > time else { throw grant.status == .redeemed ? OAuthError.invalidGrant : .expired }
        switch grant.status {
        case .redeemed: throw OAuthError.invalidGrant
        case .denied: throw OAuthError.denied
        case .pending:
            let tooSoon = grant.lastPolledAt.map { time.timeIntervalSince($0) < Double(grant.interval) } ?? false
            if tooSoon { grant.interval += 5 }
            grant.lastPolledAt = time
            _ = try await perform { try await storage.updateDeviceGrant(grant, expecting: .pending) }
            throw tooSoon ? OAuthError.slowDown : .pending
        case .approved:
            let approved = grant
            grant.status = .redeemed
            // Two polls racing for one approval: one gets the tokens, the other a refusal.
            guard try await perform({ try await storage.updateDeviceGrant(grant, expecting: .approved) }),
                let username = approved.username,
                let user = try await perform({ try await storage.user(named: username) }), !user.blocked
            else { throw OAuthError.invalidGrant }
            logger.notice("device authorization redeemed", metadata: ["app": "\(app.id)"])
            let family = Self.randomBytes(16).base64URLEncoded
            return try await issueTokens(
                app: app,
                user: user,
                deviceID: approved.deviceID,
                familyID: family,
                providerGrant: try await bindProviderGrant(
                    originHash: approved.deviceCodeHash,
                    familyID: family,
                    app: app
                )
            )
        }
    }

    /// The tokens of an authorization code, once: for the redirect URI it was issued for,
    /// with the PKCE verifier of its challenge, within its minute. A code presented again
    /// revokes the tokens its first redemption gave (RFC 6749 §4.1.2): whoever holds it
    /// now is not who redeemed it.
    private func redeemAuthorizationCode(
        _ code: String,
        redirectURI: String,
        verifier: String,
        app: AppRecord
    ) async throws -> Components.Schemas.TokenResponse {
        let hash = BearerToken.hash(code)
        guard let record = try await perform({ try await storage.authorizationCode(codeHash: hash) }),
            record.appID == app.id
        else { throw OAuthError.invalidGrant }
        if let family = record.familyID {
            try await perform { try await storage.revokeRefreshFamily(family) }
            logger.warning("authorization code used again; its tokens revoked", metadata: ["app": "\(app.id)"])
            throw OAuthError.invalidGrant
        }
        guard PKCE.isValidVerifier(verifier) else {
            throw OAuthError.invalidRequest("code_verifier must be 43 to 128 unreserved characters.")
        }
        guard record.redirectURI == redirectURI, PKCE.challenge(for: verifier) == record.codeChallenge,
            record.expiresAt > now()
        else { throw OAuthError.invalidGrant }
        let family = Self.randomBytes(16).base64URLEncoded
        guard
            try await perform({ try await storage.redeemAuthorizationCode(codeHash: hash, familyID: family, at: now()) }
            )
        else { throw OAuthError.invalidGrant }
        guard let user = try await perform({ try await storage.user(named: record.username) }), !user.blocked else {
            throw OAuthError.invalidGrant
        }
        logger.notice("authorization code redeemed", metadata: ["app": "\(app.id)"])
        return try await issueTokens(
            app: app,
            user: user,
            deviceID: record.deviceID,
            familyID: family,
            nonce: record.nonce,
            providerGrant: try await bindProviderGrant(originHash: hash, familyID: family, app: app)
        )
    }

    private func rotateRefreshToken(_ token: String, app: AppRecord) async throws -> Components.Schemas.TokenResponse {
        let hash = BearerToken.hash(token)
        guard let refresh = try await perform({ try await storage.refreshToken(tokenHash: hash) }),
            refresh.appID == app.id
        else { throw OAuthError.invalidGrant }
        // A federated sign-in asks its provider first, before the token is spent: when
        // the provider cannot be reached, the device can try again with the same token.
        var providerGrant: ProviderGrantRecord?
        if refresh.usedAt == nil, !refresh.revoked, refresh.expiresAt > now(), app.authentication.provider != nil {
            // One renewal of the family at a time, each with the grant as the one before
            // left it: a client's two refreshes at once both keep the sign-in.
            providerGrant = try await providers.renewals.inTurn(of: refresh.familyID) {
                guard let grant = try await perform({ try await storage.providerGrant(familyID: refresh.familyID) })
                else { return nil }
                return try await federation.renewAtProvider(grant, app: app)
            }
        }
        let client = BearerToken.hash(RequestInfo.current.clientAddress(trusting: settings.trustedProxies))
        if try await !perform({ try await storage.spendRefreshToken(tokenHash: hash, at: now(), by: client) }) {
            guard let again = try await perform({ try await storage.refreshToken(tokenHash: hash) }),
                !again.revoked, again.usedFrom == client,
                let spent = again.usedAt, (0...Self.refreshRetryGrace).contains(now().timeIntervalSince(spent))
            else {
                if !refresh.revoked {
                    // A spent token again: someone holds a copy. Nothing of the family stays valid.
                    try await perform { try await storage.revokeRefreshFamily(refresh.familyID) }
                    logger.warning("spent refresh token reused; its family revoked", metadata: ["app": "\(app.id)"])
                }
                throw OAuthError.invalidGrant
            }
            // The same client again, within the grace: a second refresh at once. It gets
            // tokens of its own in the same family, each still spent once, and its session
            // ends no later than the provider's grant the first refresh renewed.
            logger.info("refresh token spent again by its client within the grace", metadata: ["app": "\(app.id)"])
            if app.authentication.provider != nil {
                providerGrant = try await perform { try await storage.providerGrant(familyID: refresh.familyID) }
            }
        }
        guard refresh.expiresAt > now(),
            let user = try await perform({ try await storage.user(named: refresh.username) }), !user.blocked
        else {
            try await perform { try await storage.revokeRefreshFamily(refresh.familyID) }
            throw OAuthError.invalidGrant
        }
        if let device = try await perform({
            try await storage.device(appID: app.id, username: user.username, deviceID: refresh.deviceID)
        }), device.status != .active {
            // A locked or wiped registration ends its tokens; signing in again starts anew.
            try await perform { try await storage.revokeRefreshFamily(refresh.familyID) }
            throw OAuthError.invalidGrant
        }
        return try await issueTokens(
            app: app,
            user: user,
            deviceID: refresh.deviceID,
            familyID: refresh.familyID,
            providerGrant: providerGrant,
            signsIn: false
        )
    }

    /// The provider's grant a federated sign-in's code or device code came with, now
    /// bound to the refresh token family its redemption started; `nil` for a sign-in
    /// with a password.
    private func bindProviderGrant(
        originHash: Data,
        familyID: String,
        app: AppRecord
    ) async throws(APIError) -> ProviderGrantRecord? {
        guard app.authentication.provider != nil else { return nil }
        try await perform { try await storage.bindProviderGrant(originHash: originHash, familyID: familyID) }
        return try await perform { try await storage.providerGrant(familyID: familyID) }
    }

    /// A new session and refresh token of `familyID`, with an ID token for `user` (and the
    /// `nonce` of the authorization request, if it had one). A federated sign-in's
    /// session ends no later than its provider's access token, so the device's next
    /// refresh asks the provider again.
    private func issueTokens(
        app: AppRecord,
        user: UserRecord,
        deviceID: String,
        familyID: String,
        nonce: String? = nil,
        providerGrant: ProviderGrantRecord? = nil,
        signsIn: Bool = true
    ) async throws -> Components.Schemas.TokenResponse {
        let username = user.username
        var lifetime = settings.sessionLifetime.seconds
        if let providerGrant {
            lifetime = max(1, min(lifetime, providerGrant.accessExpiresAt.timeIntervalSince(now()).rounded(.down)))
        }
        // A refresh never gets here for a locked registration (see rotateRefreshToken); a
        // code approved for a locked one is refused, as a password sign-in there is: a lock
        // holds until an administrator lifts it.
        let opened: (token: String, record: SessionRecord)
        do {
            opened = try await sessions.openSession(
                app: app,
                username: username,
                deviceID: deviceID,
                lifetime: lifetime,
                signsIn: signsIn
            )
        } catch {
            let refusal: APIError = error
            guard refusal.code != .registrationLocked else { throw OAuthError.registrationLocked }
            throw refusal
        }
        let (access, session) = opened
        let time = session.createdAt
        let refresh = BearerToken.make()
        let joined = try await perform {
            try await storage.insertRefreshToken(
                RefreshTokenRecord(
                    tokenHash: BearerToken.hash(refresh),
                    familyID: familyID,
                    appID: app.id,
                    username: username,
                    deviceID: deviceID,
                    sessionHash: session.tokenHash,
                    createdAt: time,
                    expiresAt: time.addingTimeInterval(Self.refreshTokenLifetime)
                )
            )
        }
        guard joined else {
            // The family was revoked while this refresh ran (a reuse of its token was
            // seen): its new session goes too, and nothing is issued.
            try await perform { try await storage.revokeSession(tokenHash: session.tokenHash) }
            logger.warning("refresh lost to a revocation of its family", metadata: ["app": "\(app.id)"])
            throw OAuthError.invalidGrant
        }
        let idToken: String
        do {
            idToken = try await keys.idTokens.signer(at: time).idToken(
                issuer: issuer(of: app),
                audience: app.id,
                user: user,
                nonce: nonce,
                at: time
            )
        } catch {
            throw APIError.storage(StorageError(.unavailable, "an ID token could not be signed"))
        }
        return .init(
            accessToken: access,
            tokenType: .bearer,
            expiresIn: Int(lifetime),
            refreshToken: refresh,
            idToken: idToken
        )
    }

    /// The device grant of `userCode` while a person may still approve or deny it: `app`'s,
    /// pending, and not expired; `nil` otherwise, and when the database cannot say.
    func pendingDeviceGrant(userCode: String, app: AppRecord) async -> DeviceGrantRecord? {
        guard let grant = try? await storage.deviceGrant(userCode: userCode), grant.appID == app.id,
            grant.status == .pending, grant.expiresAt > now()
        else { return nil }
        return grant
    }
}

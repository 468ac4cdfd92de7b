import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Signing in through an app's OpenID Connect provider: the server is the provider's
/// client (a relying party), with the authorization code flow and PKCE (OpenID Connect
/// Core §3.1, RFC 7636).
///
/// The app's sign-in page and device verification page send the browser to the provider
/// (``start(_:app:provider:)``) instead of asking for a password; the provider sends it
/// back to `GET /apps/{appID}/oauth/callback`, where the server redeems the provider's
/// code, checks the ID token (signature against the provider's published keys, issuer,
/// audience, expiry, and the nonce this sign-in sent), finds the Gangway user the
/// provider's subject is linked to (or creates one, when the admin allows it), and
/// finishes what the person was doing: a code for the app's redirect URI, or an approved
/// device code.
///
/// A sign-in is bound to the browser that started it by a cookie only that browser holds
/// (so a link with someone else's provider code signs no one in: login CSRF), lives ten
/// minutes, and is finished once.
struct FederatedSignIn: Sendable {
    let api: MobileServicesAPI
    /// What the API's handlers share: storage, keys, settings, clock and logger.
    var services: APIServices { api.services }
    /// The users a provider signs in, their grants, and the codes that end a sign-in.
    var federation: FederationHandler { .init(services: api.services) }

    /// What the person was doing when the sign-in went to the provider.
    enum Origin: Sendable, Hashable, Codable {
        /// The authorization code grant: a code goes back to the app's redirect URI.
        case authorizationCode(AuthorizationRequest)
        /// The device authorization grant: the device code of this user code is approved.
        case deviceGrant(userCode: String)
        /// Back from the provider in the code grant, waiting for the person to let the app
        /// in as `username`, with what the provider granted.
        case consent(AuthorizationRequest, username: String, grant: ProviderGrantRecord)
        /// Back from the provider in the device grant, waiting for the person to let the
        /// device of this user code in as `username`, with what the provider granted.
        case deviceConsent(userCode: String, username: String, grant: ProviderGrantRecord)
    }

    /// How long a sign-in may stay at the provider.
    static let lifetime: TimeInterval = 10 * 60
    static let cookieName = "gangway_sign_in"
    /// The scopes asked of the provider: who the person is, their name and address.
    static let scope = "openid profile email"

    func register(on router: Router<ServerContext>) {
        OAuthPaths.Page.callback.register(
            on: router,
            show: { await finish($0, context: $1) },
            answer: { await consent($0, context: $1) }
        )
    }

    /// Where the provider sends the browser back to, for `app`: to be registered at the
    /// provider as a redirect URI of the app's client.
    static func callbackURL(issuer: String) -> String { issuer + "/oauth/" + OAuthPaths.Page.callback.rawValue }

    // MARK: Out to the provider

    /// Sends the browser to the provider, with a new state, nonce and PKCE challenge.
    func start(_ origin: Origin, app: AppRecord, provider: IdentityProvider) async -> Response {
        do {
            return try await depart(
                origin,
                app: app,
                provider: provider,
                redirectURI: Self.callbackURL(issuer: api.oauth.issuer(of: app)),
                cookiePath: OAuthPaths.Page.callback.path(appID: app.id)
            )
        } catch {
            return unavailable(origin, app: app, reason: error)
        }
    }

    /// The answer that sends the browser to the provider's authorization endpoint, as the
    /// app's client there, to come back to `redirectURI`, with a new state, nonce and PKCE
    /// challenge; `origin` is kept for the return, bound to the browser by a cookie sent
    /// to `cookiePath` alone.
    func depart(
        _ origin: some Encodable,
        app: AppRecord,
        provider: IdentityProvider,
        redirectURI: String,
        cookiePath: String
    ) async throws(FederationError) -> Response {
        let metadata = try await services.providers.metadata(issuer: provider.issuer)
        let state = BearerToken.random()
        let nonce = BearerToken.random()
        let verifier = BearerToken.random()
        let browser = BearerToken.random()
        do {
            try await keep(origin, under: state, browser: browser, nonce: nonce, verifier: verifier, app: app)
        } catch {
            throw .unavailable("the sign-in could not be stored")
        }
        let query = FormBody.text([
            ("response_type", "code"), ("client_id", provider.clientID), ("redirect_uri", redirectURI),
            ("scope", Self.scope), ("state", state), ("nonce", nonce),
            ("code_challenge", PKCE.challenge(for: verifier)),
            ("code_challenge_method", PKCE.method),
        ])
        let endpoint = metadata.authorizationEndpoint
        services.logger.info(
            "sign-in sent to the identity provider",
            metadata: [
                "app": "\(app.id)", "issuer": "\(provider.issuer)", "request": "\(RequestInfo.current.requestID)",
            ]
        )
        var response = AuthorizationPage.redirect(endpoint + (endpoint.contains("?") ? "&" : "?") + query)
        response.headers[.setCookie] = cookie(browser, path: cookiePath, maxAge: Int(Self.lifetime))
        return response
    }

    /// Keeps a sign-in under the hash of `token` (the state sent to the provider, or the
    /// consent form's), for ten minutes, for the browser holding `browser`.
    func keep(
        _ origin: some Encodable,
        under token: String,
        browser: String,
        nonce: String = "",
        verifier: String = "",
        app: AppRecord
    ) async throws {
        let time = services.now()
        try await services.storage.insertFederatedSignIn(
            FederatedSignInRecord(
                stateHash: BearerToken.hash(token),
                appID: app.id,
                browserHash: BearerToken.hash(browser),
                nonce: nonce,
                codeVerifier: verifier,
                origin: String(decoding: try JSONEncoder().encode(origin), as: UTF8.self),
                createdAt: time,
                expiresAt: time.addingTimeInterval(Self.lifetime)
            )
        )
    }

    /// A sign-in taken back, or the page that says why not.
    enum Taken {
        case signIn(FederatedSignInRecord, Origin, browser: String)
        case refused(Response)
    }

    /// The sign-in kept under `token`, taken once: it must be this app's, unexpired, and
    /// come back to the browser that started it (the cookie), or it finishes nothing.
    func take(_ token: String?, request: Request, app: AppRecord) async -> Taken {
        let record: FederatedSignInRecord
        let browser: String
        do {
            (record, browser) = try await take(token, request: request, appID: app.id)
        } catch {
            switch error {
            case .stale: return .refused(page(app: app, status: .badRequest, message: Self.staleMessage))
            case .unavailable:
                return .refused(page(app: app, status: .serviceUnavailable, message: Self.tryAgainMessage))
            case .anotherBrowser:
                return .refused(
                    page(
                        app: app,
                        status: .badRequest,
                        message:
                            "This sign-in was started in another browser. Start again from the app, in this browser."
                    )
                )
            }
        }
        guard let origin = try? JSONDecoder().decode(Origin.self, from: Data(record.origin.utf8)) else {
            return .refused(page(app: app, status: .badRequest, message: Self.staleMessage))
        }
        return .signIn(record, origin, browser: browser)
    }

    /// Why a sign-in could not be taken back.
    enum TakeFailure: Error {
        /// There is none under the token (never, finished, or of another app), or it ended.
        case stale
        /// The database cannot be read.
        case unavailable
        /// It came back to a browser that did not start it.
        case anotherBrowser
    }

    /// The sign-in kept under `token`, taken once, and the browser's binding: it must be
    /// unexpired, of `appID` when one is given, and come back to the browser that started
    /// it (the cookie named ``cookieName``).
    func take(
        _ token: String?,
        request: Request,
        appID: String?
    ) async throws(TakeFailure) -> (FederatedSignInRecord, browser: String) {
        guard let token, !token.isEmpty else { throw .stale }
        let record: FederatedSignInRecord?
        do {
            record = try await services.storage.takeFederatedSignIn(stateHash: BearerToken.hash(token))
        } catch {
            throw .unavailable
        }
        guard let record, appID == nil || record.appID == appID, record.expiresAt > services.now() else { throw .stale }
        guard let browser = BrowserCookie.value(named: Self.cookieName, in: request.headers),
            BearerToken.hash(browser) == record.browserHash
        else {
            services.logger.warning(
                "federated sign-in returned to another browser",
                metadata: ["app": "\(record.appID)", "request": "\(RequestInfo.current.requestID)"]
            )
            throw .anotherBrowser
        }
        return (record, browser)
    }

    /// Who the provider signed in: its code redeemed as the app's client (with the
    /// sign-in's PKCE verifier, for `redirectURI`), and the ID token checked (its
    /// signature, issuer, audience, expiry and the sign-in's nonce).
    func identity(
        code: String,
        of record: FederatedSignInRecord,
        app: AppRecord,
        provider: IdentityProvider,
        redirectURI: String
    ) async throws(FederationError) -> (ProviderIdentity, IdentityProviderClient.Tokens) {
        let tokens = try await services.providers.redeem(
            code: code,
            verifier: record.codeVerifier,
            redirectURI: redirectURI,
            provider: provider,
            clientSecret: try federation.clientSecret(of: app)
        )
        guard let idToken = tokens.idToken else {
            throw FederationError.invalidIDToken("the token endpoint gave no ID token")
        }
        return (try await services.providers.identity(of: idToken, provider: provider, nonce: record.nonce), tokens)
    }

    // MARK: Back from the provider

    private func finish(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api), let provider = app.authentication.provider else {
            return OAuthPage.notFound
        }
        var response = await settle(request, app: app, provider: provider)
        // Unless the consent page still needs it, the sign-in is over: the browser forgets
        // its cookie.
        if response.headers[.setCookie] == nil {
            response.headers[.setCookie] = cookie("", app: app, maxAge: 0)
        }
        return response
    }

    private func settle(_ request: Request, app: AppRecord, provider: IdentityProvider) async -> Response {
        let query = request.uri.queryParameters
        let record: FederatedSignInRecord
        let origin: Origin
        let browser: String
        switch await take(query.get("state"), request: request, app: app) {
        case .refused(let response): return response
        case .signIn(let taken, let takenOrigin, let takenBrowser):
            (record, origin, browser) = (taken, takenOrigin, takenBrowser)
        }
        // RFC 9207: an answer that says it comes from another issuer is a mix-up attack.
        if let issuer = query.get("iss"), issuer != provider.issuer {
            return refuse(origin, app: app, reason: "the answer names another issuer")
        }
        if let error = query.get("error") {
            return declined(origin, app: app, error: error)
        }
        guard let code = query.get("code"), !code.isEmpty else {
            return refuse(origin, app: app, reason: "the answer holds no code")
        }
        let user: UserRecord
        let grant: ProviderGrantRecord
        do {
            let (identity, tokens) = try await self.identity(
                code: code,
                of: record,
                app: app,
                provider: provider,
                redirectURI: Self.callbackURL(issuer: api.oauth.issuer(of: app))
            )
            user = try await federation.federatedUser(identity, provider: provider, app: app)
            grant = try federation.providerGrant(tokens, app: app, username: user.username)
        } catch let error as FederationError {
            return failed(origin, app: app, reason: error)
        } catch let refusal as FederationHandler.FederatedUserRefusal {
            return refused(origin, app: app, refusal: refusal)
        } catch {
            return unavailable(origin, app: app, reason: .unavailable("the sign-in could not be stored"))
        }
        let form = services.formGuard.browser(request.headers)
        switch origin {
        case .authorizationCode(let authorization):
            return await askConsent(
                .consent(authorization, username: user.username, grant: grant),
                app: app,
                user: user,
                browser: browser,
                form: form
            )
        case .deviceGrant(let userCode):
            return await askConsent(
                .deviceConsent(userCode: userCode, username: user.username, grant: grant),
                app: app,
                user: user,
                browser: browser,
                form: form
            )
        case .consent, .deviceConsent:
            return page(app: app, status: .badRequest, message: Self.staleMessage)
        }
    }

    func issueCode(
        _ authorization: AuthorizationRequest,
        app: AppRecord,
        user: UserRecord,
        grant: ProviderGrantRecord
    ) async -> Response {
        do {
            let code = try await federation.issueAuthorizationCode(
                app: app,
                authorization: authorization,
                username: user.username,
                providerGrant: grant
            )
            return AuthorizationPage.redirect(
                AuthorizationRequest.location(
                    authorization.redirectURI,
                    [("code", code), ("state", authorization.state), ("iss", api.oauth.issuer(of: app))]
                )
            )
        } catch {
            return page(app: app, status: .serviceUnavailable, message: Self.tryAgainMessage)
        }
    }

    func approve(
        _ userCode: String,
        app: AppRecord,
        user: UserRecord,
        grant: ProviderGrantRecord
    ) async -> Response {
        guard var deviceGrant = await api.oauth.pendingDeviceGrant(userCode: userCode, app: app) else {
            return page(
                app: app,
                status: .badRequest,
                message: "This code was already used, or it expired. Check your device."
            )
        }
        var grant = grant
        grant.originHash = deviceGrant.deviceCodeHash
        deviceGrant.status = .approved
        deviceGrant.username = user.username
        do {
            try await services.storage.insertProviderGrant(grant)
            guard try await services.storage.updateDeviceGrant(deviceGrant, expecting: .pending) else {
                return page(app: app, status: .conflict, message: "This code was already used. Check your device.")
            }
        } catch {
            return page(app: app, status: .serviceUnavailable, message: Self.tryAgainMessage)
        }
        services.logger.notice(
            "device authorization approved",
            metadata: ["app": "\(app.id)", "issuer": "\(grant.issuer)", "request": "\(RequestInfo.current.requestID)"]
        )
        return page(
            app: app,
            status: .ok,
            message: "Your device is signed in as \(user.shownName). You can go back to it now.",
            isDone: true
        )
    }

    // MARK: When it does not work out

    static let staleMessage =
        "This sign-in expired or was already finished. Start again from the app."
    static let tryAgainMessage = "The server could not finish the sign-in. Try again."

    /// The person cancelled at the provider, or the provider would not sign them in.
    private func declined(_ origin: Origin, app: AppRecord, error: String) -> Response {
        let denied = error == "access_denied" || error == "login_required" || error == "consent_required"
        services.logger.notice(
            "identity provider declined the sign-in",
            metadata: ["app": "\(app.id)", "error": "\(denied ? error : "other")"]
        )
        return answer(
            origin,
            app: app,
            error: denied ? "access_denied" : "server_error",
            message: denied
                ? "The sign-in was cancelled at the sign-in service."
                : "The sign-in service could not sign you in. Try again.",
            status: .forbidden
        )
    }

    private func refuse(_ origin: Origin, app: AppRecord, reason: String) -> Response {
        failed(origin, app: app, reason: .invalidIDToken(reason))
    }

    private func failed(_ origin: Origin, app: AppRecord, reason: FederationError) -> Response {
        if reason.code == .unavailable { return unavailable(origin, app: app, reason: reason) }
        log("federated sign-in refused", app: app, reason: reason)
        return answer(
            origin,
            app: app,
            error: "server_error",
            message: "The sign-in service's answer did not pass the server's checks, so no one was signed in. "
                + "Your administrator can see why in the server's log.",
            status: .badGateway
        )
    }

    /// The provider out of reach, or the sign-in not kept: worth another try.
    private func unavailable(_ origin: Origin, app: AppRecord, reason: FederationError) -> Response {
        log("identity provider unavailable", app: app, reason: reason)
        return answer(
            origin,
            app: app,
            error: "temporarily_unavailable",
            message: "The sign-in service cannot be reached. Try again in a moment.",
            status: .serviceUnavailable
        )
    }

    private func log(_ event: Logger.Message, app: AppRecord, reason: FederationError) {
        services.logger.error(
            event,
            metadata: [
                "app": "\(app.id)", "reason": "\(reason.description)", "request": "\(RequestInfo.current.requestID)",
            ]
        )
    }

    func refused(_ origin: Origin, app: AppRecord, refusal: FederationHandler.FederatedUserRefusal) -> Response {
        let message: String
        switch refusal {
        case .notLinked(let issuer, let subject):
            message =
                "You signed in, but your account is not linked to a user of this app. Ask your administrator "
                + "to link it: issuer \(issuer), subject \(subject)."
        case .blocked:
            message = "Your user is blocked on this server. Ask your administrator."
        }
        return answer(origin, app: app, error: "access_denied", message: message, status: .forbidden)
    }

    /// A failure told where the person is: back to the app's redirect URI with an OAuth
    /// error (RFC 6749 §4.1.2.1), or on the page, for a device code.
    func answer(
        _ origin: Origin,
        app: AppRecord,
        error: String,
        message: String,
        status: HTTPResponse.Status
    ) -> Response {
        switch origin {
        case .authorizationCode(let authorization), .consent(let authorization, _, _):
            return AuthorizationPage.redirect(
                AuthorizationRequest.location(
                    authorization.redirectURI,
                    [
                        ("error", error), ("error_description", message), ("state", authorization.state),
                        ("iss", api.oauth.issuer(of: app)),
                    ]
                )
            )
        case .deviceGrant, .deviceConsent:
            return page(app: app, status: status, message: message)
        }
    }

    // MARK: HTTP

    func page(app: AppRecord, status: HTTPResponse.Status, message: String, isDone: Bool = false) -> Response {
        let text = OAuthPage.escape(message)
        let main =
            "<h1>\(OAuthPage.escape(app.name))</h1>"
            + (isDone ? "<p role=\"status\">\(text)</p>" : "<p class=\"error\" role=\"alert\">\(text)</p>")
        return Response(
            status: status,
            headers: OAuthPage.headers,
            body: .init(byteBuffer: ByteBuffer(string: OAuthPage.document(title: "Sign in", main: main)))
        )
    }

    /// The cookie that binds a sign-in to its browser, for the app's callback.
    func cookie(_ value: String, app: AppRecord, maxAge: Int) -> String {
        cookie(value, path: OAuthPaths.Page.callback.path(appID: app.id), maxAge: maxAge)
    }

    /// The cookie that binds a sign-in to its browser: sent only to the callback at
    /// `path`, never to a script, and (with `SameSite=Lax`) on the provider's top-level
    /// redirect back.
    func cookie(_ value: String, path: String, maxAge: Int) -> String {
        BrowserCookie.setCookie(
            name: Self.cookieName,
            value: value,
            path: path,
            maxAge: maxAge,
            secure: services.isSecureOrigin
        )
    }
}

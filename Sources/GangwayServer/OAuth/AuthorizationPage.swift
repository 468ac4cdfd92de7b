import Foundation
import GangwayForms
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The sign-in page of the authorization code grant (RFC 6749 §4.1, with PKCE): `GET
/// /apps/{appID}/oauth/authorize?…` shows the app's name, the person's user name and
/// password, and Approve and Deny; `POST` the same path decides, and the browser goes
/// back to the app's redirect URI with a code (or `access_denied`), the `state` it came
/// with, and the issuer (`iss`, RFC 9207).
///
/// A request whose client or redirect URI is wrong is refused on the page, never
/// redirected (RFC 6749 §4.1.2.1). The password goes through the same throttle and bcrypt
/// gate as every other sign-in. A code lives a minute and is redeemed once.
struct AuthorizationPage: OAuthPageRoutes {
    let api: MobileServicesAPI
    /// The users a provider signs in, their grants, and the codes that end a sign-in.
    var federation: FederationHandler { .init(services: api.services) }

    /// How long an authorization code lives (RFC 6749 §4.1.2: short; ten minutes at most).
    static let codeLifetime: TimeInterval = 60

    static let page = OAuthPaths.Page.authorize

    func show(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api) else { return OAuthPage.notFound }
        var fields: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where fields[String(name)] == nil {
            fields[String(name)] = String(value)
        }
        switch AuthorizationRequest.parse(fields, app: app) {
        case .failure(let refusal): return Self.refused(refusal, app: app)
        case .success(let authorization):
            if let provider = app.authentication.provider {
                // The app's people sign in at its OpenID Connect provider, not here.
                return await FederatedSignIn(api: api).start(
                    .authorizationCode(authorization),
                    app: app,
                    provider: provider
                )
            }
            return page(app: app, authorization: authorization, browser: services.formGuard.browser(request.headers))
        }
    }

    func decide(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api) else { return OAuthPage.notFound }
        var request = request
        guard let body = try? await request.collectBody(upTo: OAuthPage.formLimit) else {
            return Self.refused(.page("The form is too large."), app: app, status: .contentTooLarge)
        }
        let form = FormBody.fields(body)
        if let refusal = services.formGuard.refusal(request.head, fields: form, appID: app.id) {
            return OAuthPage.forged(refusal, app: app, api: api)
        }
        let authorization: AuthorizationRequest
        switch AuthorizationRequest.parse(form, app: app) {
        case .failure(let refusal): return Self.refused(refusal, app: app)
        case .success(let parsed): authorization = parsed
        }
        if let provider = app.authentication.provider {
            // A form shown before the admin named a provider: no password is taken now.
            return await FederatedSignIn(api: api).start(
                .authorizationCode(authorization),
                app: app,
                provider: provider
            )
        }
        let issuer = api.oauth.issuer(of: app)
        guard form["decision"] == "approve" else {
            // Denying needs no password: the app learns only that the person said no.
            services.logger.notice("authorization denied", metadata: ["app": "\(app.id)"])
            return Self.redirect(
                AuthorizationRequest.location(
                    authorization.redirectURI,
                    [
                        ("error", "access_denied"), ("error_description", "The person denied the sign-in."),
                        ("state", authorization.state), ("iss", issuer),
                    ]
                )
            )
        }
        let username = (form["username"] ?? "").lowercased()
        let user: UserRecord
        let deviceCookie: String?
        do {
            (user, deviceCookie) = try await sessions.pageSignIn(form: form, headers: request.headers, appID: app.id)
        } catch let answer {
            return page(
                app: app,
                authorization: authorization,
                browser: services.formGuard.browser(request.headers),
                status: answer.status,
                username: username,
                message: answer.message
            )
        }
        let code: String
        do {
            code = try await federation.issueAuthorizationCode(
                app: app,
                authorization: authorization,
                username: user.username
            )
        } catch {
            return page(
                app: app,
                authorization: authorization,
                browser: services.formGuard.browser(request.headers),
                status: .serviceUnavailable,
                username: username,
                message: "The server could not finish the sign-in. Try again."
            )
        }
        var response = Self.redirect(
            AuthorizationRequest.location(
                authorization.redirectURI,
                [("code", code), ("state", authorization.state), ("iss", issuer)]
            )
        )
        if let deviceCookie { response.headers.append(HTTPField(name: .setCookie, value: deviceCookie)) }
        return response
    }

    /// A 303 to `location`, which holds a code: never cached, never sent on as a referrer.
    static func redirect(_ location: String) -> Response {
        Response(
            status: .seeOther,
            headers: [
                .location: location, .cacheControl: "no-store", HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ]
        )
    }

    static func refused(
        _ refusal: AuthorizationRequest.Refusal,
        app: AppRecord,
        status: HTTPResponse.Status = .badRequest
    ) -> Response {
        switch refusal {
        case .redirect(let uri, let error, let description, let state):
            return redirect(
                AuthorizationRequest.location(
                    uri,
                    [("error", error), ("error_description", description), ("state", state)]
                )
            )
        case .page(let message):
            let main =
                "<h1>\(OAuthPage.escape(app.name))</h1><p class=\"error\" role=\"alert\">\(OAuthPage.escape(message))</p>"
            return Response(
                status: status,
                headers: OAuthPage.headers,
                body: .init(byteBuffer: ByteBuffer(string: OAuthPage.document(title: "Sign in", main: main)))
            )
        }
    }

    private func page(
        app: AppRecord,
        authorization: AuthorizationRequest,
        browser: FormGuard.Browser,
        status: HTTPResponse.Status = .ok,
        username: String = "",
        message: String? = nil
    ) -> Response {
        let name = OAuthPage.escape(app.name)
        let alert = message.map { "<p class=\"error\" role=\"alert\">\(OAuthPage.escape($0))</p>" } ?? ""
        let hidden = authorization.formFields(app: app).map { name, value in
            "<input type=\"hidden\" name=\"\(OAuthPage.escape(name))\" value=\"\(OAuthPage.escape(value))\">"
        }.joined(separator: "\n")
        let main = """
            <h1>Sign in to \(name)</h1>
            <p>Sign in with your user name and password to let the app on your device in.</p>
            \(alert)
            <form method="post">
            \(hidden)
            \(OAuthPage.tokenField(services.formGuard.token(for: browser, appID: app.id)))
            <label for="username">User name</label>
            <input id="username" name="username" value="\(OAuthPage.escape(username))" required autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="128" autofocus>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" required autocomplete="current-password" maxlength="1024">
            <div class="buttons">
            <button type="submit" name="decision" value="approve">Sign In</button>
            <button type="submit" name="decision" value="deny" formnovalidate class="secondary">Deny</button>
            </div>
            </form>
            """
        var response = OAuthPage.response(
            status: status,
            title: "Sign in",
            main: main,
            formAction: authorization.formAction
        )
        if browser.isNew {
            response.headers.append(HTTPField(name: .setCookie, value: services.formGuard.setCookie(browser)))
        }
        return response
    }
}

import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The consent page of a federated sign-in: back from the provider, the person lets the
/// app (code grant) or the device (device grant) in, or not, before anything is issued.
extension FederatedSignIn {
    /// The person lets the app or device in, or not: a sign-in the provider finished
    /// without the person doing anything (a provider session still open) must not reach
    /// an app on its own, since any program on the device can listen on a loopback
    /// redirect URI and start a sign-in (RFC 8252 §8.6), and any site can send a browser
    /// to approve a device code it holds. The device grant's page names the device that
    /// asked and when (RFC 8628 §5.4).
    ///
    /// - Parameters:
    ///   - waiting: ``Origin/consent(_:username:grant:)`` or
    ///     ``Origin/deviceConsent(userCode:username:grant:)``.
    ///   - browser: The sign-in's browser cookie, which the consent form must come back with.
    ///   - form: The browser's anti-forgery secret (``FormGuard``).
    func askConsent(
        _ waiting: Origin,
        app: AppRecord,
        user: UserRecord,
        browser: String,
        form: FormGuard.Browser
    ) async -> Response {
        let token = BearerToken.random()
        let name = OAuthPage.escape(app.name)
        // The provider and the user name as well as the name: a person the provider signed
        // in first, named as someone who was there before, is told apart from them.
        let provider =
            app.authentication.provider.map { " at " + OAuthPage.escape(IssuerURL.shown($0.issuer)) } ?? ""
        let signedInAs = """
            <p>You are signed in\(provider) as <strong>\(OAuthPage.escape(user.displayName))</strong>, \
            user name <strong>\(OAuthPage.escape(user.username))</strong>.</p>
            """
        let title: String
        let question: String
        let formAction: String
        switch waiting {
        case .consent(let authorization, _, _):
            title = "Sign in"
            question = """
                <h1>Sign in to \(name)</h1>
                \(signedInAs)
                <p>Let the \(name) app on your device use your account? It gets your name and stays signed in \
                until you sign out.</p>
                """
            formAction = authorization.formAction
        case .deviceConsent(let userCode, _, _):
            guard let grant = await api.oauth.pendingDeviceGrant(userCode: userCode, app: app) else {
                return page(
                    app: app,
                    status: .badRequest,
                    message: "This code was already used, or it expired. Check your device."
                )
            }
            title = "Sign in a device"
            question = """
                <h1>Sign in a device to \(name)</h1>
                \(signedInAs)
                <p>\(OAuthPage.deviceAsked(grant, app: app, now: services.now()))</p>
                <p>Let that device use your account? Its code is <strong>\
                \(OAuthPage.escape(UserCode.display(userCode)))</strong>. Allow only if you started this on your \
                device and it shows this code.</p>
                """
            formAction = "'self'"
        case .authorizationCode, .deviceGrant:
            return page(app: app, status: .badRequest, message: Self.staleMessage)
        }
        do {
            try await keep(waiting, under: token, browser: browser, app: app)
        } catch {
            return page(app: app, status: .serviceUnavailable, message: Self.tryAgainMessage)
        }
        let main = """
            \(question)
            <form method="post">
            <input type="hidden" name="consent" value="\(token)">
            \(OAuthPage.tokenField(services.formGuard.token(for: form, appID: app.id)))
            <div class="buttons">
            <button type="submit" name="decision" value="approve" autofocus>Allow</button>
            <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
            </div>
            </form>
            """
        var response = OAuthPage.response(status: .ok, title: title, main: main, formAction: formAction)
        response.headers[.setCookie] = cookie(browser, app: app, maxAge: Int(Self.lifetime))
        if form.isNew {
            response.headers.append(HTTPField(name: .setCookie, value: services.formGuard.setCookie(form)))
        }
        return response
    }

    func consent(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api), app.authentication.provider != nil else {
            return OAuthPage.notFound
        }
        var request = request
        guard let body = try? await request.collectBody(upTo: OAuthPage.formLimit) else {
            return page(app: app, status: .contentTooLarge, message: "The form is too large.")
        }
        let form = FormBody.fields(body)
        // A forged form leaves the sign-in waiting: the person's own answer still counts.
        if let refusal = services.formGuard.refusal(request.head, fields: form, appID: app.id) {
            return OAuthPage.forged(refusal, app: app, api: api)
        }
        let approves = form["decision"] == "approve"
        var response: Response
        switch await take(form["consent"], request: request, app: app) {
        case .refused(let refusal):
            response = refusal
        case .signIn(_, .consent(let authorization, let username, let grant), _):
            response = await decide(
                .authorizationCode(authorization),
                username: username,
                grant: grant,
                approves: approves,
                app: app
            )
        case .signIn(_, .deviceConsent(let userCode, let username, let grant), _):
            response = await decide(
                .deviceGrant(userCode: userCode),
                username: username,
                grant: grant,
                approves: approves,
                app: app
            )
        case .signIn:
            response = page(app: app, status: .badRequest, message: Self.staleMessage)
        }
        response.headers[.setCookie] = cookie("", app: app, maxAge: 0)
        return response
    }

    /// The person's answer at the consent page, for the sign-in that came from `origin`.
    private func decide(
        _ origin: Origin,
        username: String,
        grant: ProviderGrantRecord,
        approves: Bool,
        app: AppRecord
    ) async -> Response {
        guard approves else { return await deny(origin, app: app) }
        // Blocked while the page was up: the block wins.
        guard let user = try? await services.storage.user(named: username), !user.blocked else {
            return refused(origin, app: app, refusal: .blocked)
        }
        switch origin {
        case .authorizationCode(let authorization):
            return await issueCode(authorization, app: app, user: user, grant: grant)
        case .deviceGrant(let userCode):
            return await approve(userCode, app: app, user: user, grant: grant)
        case .consent, .deviceConsent:
            return page(app: app, status: .badRequest, message: Self.staleMessage)
        }
    }

    private func deny(_ origin: Origin, app: AppRecord) async -> Response {
        switch origin {
        case .authorizationCode(let authorization):
            services.logger.notice("federated sign-in denied at consent", metadata: ["app": "\(app.id)"])
            return answer(
                .authorizationCode(authorization),
                app: app,
                error: "access_denied",
                message: "The person did not let the app in.",
                status: .forbidden
            )
        case .deviceGrant(let userCode):
            guard var deviceGrant = await api.oauth.pendingDeviceGrant(userCode: userCode, app: app) else {
                return page(app: app, status: .badRequest, message: Self.staleMessage)
            }
            deviceGrant.status = .denied
            _ = try? await services.storage.updateDeviceGrant(deviceGrant, expecting: .pending)
            services.logger.notice("device authorization denied at consent", metadata: ["app": "\(app.id)"])
            return page(
                app: app,
                status: .ok,
                message: "The request was denied. Your device will say so.",
                isDone: true
            )
        case .consent, .deviceConsent:
            return page(app: app, status: .badRequest, message: Self.staleMessage)
        }
    }
}

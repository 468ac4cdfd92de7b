import Foundation
import GangwayProtocol
import Hummingbird
import Logging
import NIOCore

/// The consent page of a federated code grant: back from the provider, the person lets
/// the app in (or not) before a code goes to it.
extension FederatedSignIn {
    /// The person lets the app in, or not: a code grant the provider finished without the
    /// person doing anything (a provider session still open) must not reach an app on its
    /// own, since any program on the device can listen on a loopback redirect URI and
    /// start a sign-in (RFC 8252 §8.6).
    func askConsent(
        _ authorization: AuthorizationRequest,
        app: AppRecord,
        user: UserRecord,
        grant: ProviderGrantRecord,
        browser: String
    ) async -> Response {
        let token = MobileServicesAPI.randomBytes(32).base64URLEncoded
        do {
            try await keep(
                .consent(authorization, username: user.username, grant: grant),
                under: token,
                browser: browser,
                app: app
            )
        } catch {
            return page(app: app, status: .serviceUnavailable, message: Self.tryAgainMessage)
        }
        let name = OAuthPage.escape(app.name)
        let main = """
            <h1>Sign in to \(name)</h1>
            <p>You are signed in as <strong>\(OAuthPage.escape(user.displayName))</strong> \
            (\(OAuthPage.escape(user.username))).</p>
            <p>Let the \(name) app on your device use your account? It gets your name and stays signed in \
            until you sign out.</p>
            <form method="post">
            <input type="hidden" name="consent" value="\(token)">
            <div class="buttons">
            <button type="submit" name="decision" value="approve" autofocus>Allow</button>
            <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
            </div>
            </form>
            """
        var headers = OAuthPage.headers(formAction: authorization.formAction)
        headers[.setCookie] = cookie(browser, app: app, maxAge: Int(Self.lifetime))
        return Response(
            status: .ok,
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: OAuthPage.document(title: "Sign in", main: main)))
        )
    }

    func consent(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api), app.authentication.provider != nil else {
            return OAuthPage.notFound
        }
        var request = request
        guard let body = try? await request.collectBody(upTo: 16 * 1024) else {
            return page(app: app, status: .contentTooLarge, message: "The form is too large.")
        }
        let form = OAuthPage.form(String(buffer: body))
        var response: Response
        switch await take(form["consent"], request: request, app: app) {
        case .refused(let refusal):
            response = refusal
        case .signIn(_, .consent(let authorization, let username, let grant), _):
            response = await decide(
                authorization,
                username: username,
                grant: grant,
                approves: form["decision"] == "approve",
                app: app
            )
        case .signIn:
            response = page(app: app, status: .badRequest, message: Self.staleMessage)
        }
        response.headers[.setCookie] = cookie("", app: app, maxAge: 0)
        return response
    }

    private func decide(
        _ authorization: AuthorizationRequest,
        username: String,
        grant: ProviderGrantRecord,
        approves: Bool,
        app: AppRecord
    ) async -> Response {
        guard approves else {
            api.logger.notice("federated sign-in denied at consent", metadata: ["app": "\(app.id)"])
            return answer(
                .authorizationCode(authorization),
                app: app,
                error: "access_denied",
                message: "The person did not let the app in.",
                status: .forbidden
            )
        }
        // Blocked while the page was up: the block wins.
        guard let user = try? await api.storage.user(named: username), !user.blocked else {
            return refused(.authorizationCode(authorization), app: app, refusal: .blocked)
        }
        return await issueCode(authorization, app: app, user: user, grant: grant)
    }
}

import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The page where a person approves a device's sign-in (RFC 8628 §3.3), in two steps:
/// `GET /apps/{appID}/oauth/device` asks for the code the device shows; with
/// `?user_code=…` (the link or QR code the device shows, or the first step's answer) it
/// says which device asked, for which app and when (RFC 8628 §5.4: a person approves
/// only what they started), with the person's user name and password (or, for an app
/// with an OpenID provider, the way on to it), and Approve and Deny; `POST` the same
/// path decides.
///
/// Plain HTML with no script at all, usable with a keyboard alone and on a phone: labels
/// for every field, the browser's own autofill hints, a viewport for small screens. The
/// answers forbid framing, caching and referrers, and allow nothing to load from
/// anywhere (`Content-Security-Policy: default-src 'none'`). A form is taken only from
/// this page in the browser it was shown in (``FormGuard``). The password goes through
/// the same throttle, device cookie and bcrypt gate as every other sign-in; wrong user
/// codes are counted per address.
struct DeviceVerificationPage: OAuthPageRoutes {
    let api: MobileServicesAPI

    static let page = OAuthPaths.Page.device

    func show(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api) else { return OAuthPage.notFound }
        guard let typed = request.uri.queryParameters.get("user_code"), !typed.isEmpty else {
            return Self.codeForm(app: app, status: .ok)
        }
        switch await grant(typed, app: app) {
        case .refused(let response): return response
        case .found(let grant):
            return await approvalForm(app: app, grant: grant, browser: services.formGuard.browser(request.headers))
        }
    }

    func decide(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api) else { return OAuthPage.notFound }
        var request = request
        guard let body = try? await request.collectBody(upTo: OAuthPage.formLimit) else {
            return Self.codeForm(app: app, status: .contentTooLarge, message: "The form is too large.")
        }
        let form = FormBody.fields(body)
        if let refusal = services.formGuard.refusal(request.head, fields: form, appID: app.id) {
            return OAuthPage.forged(refusal, app: app, api: api)
        }
        var grant: DeviceGrantRecord
        switch await self.grant(form["user_code"] ?? "", app: app) {
        case .refused(let response): return response
        case .found(let found): grant = found
        }
        guard form["decision"] == "approve" else { return await deny(grant, app: app) }
        if let provider = app.authentication.provider {
            // The person signs in at the app's OpenID Connect provider, then says on the
            // consent page whether this device gets in.
            return await FederatedSignIn(api: api).start(
                .deviceGrant(userCode: grant.userCode),
                app: app,
                provider: provider
            )
        }
        let username = (form["username"] ?? "").lowercased()
        let browser = services.formGuard.browser(request.headers)
        let user: UserRecord
        let deviceCookie: String?
        do {
            (user, deviceCookie) = try await sessions.pageSignIn(form: form, headers: request.headers, appID: app.id)
        } catch let answer {
            return await approvalForm(
                app: app,
                grant: grant,
                browser: browser,
                status: answer.status,
                username: username,
                message: answer.message
            )
        }
        grant.status = .approved
        grant.username = user.username
        guard (try? await services.storage.updateDeviceGrant(grant, expecting: .pending)) == true else {
            return Self.donePage(app: app, status: .conflict, "This code was already used. Check your device.")
        }
        services.logger.notice(
            "device authorization approved",
            metadata: ["app": "\(app.id)", "request": "\(RequestInfo.current.requestID)"]
        )
        var response = Self.donePage(
            app: app,
            status: .ok,
            "Your device is signed in as \(user.shownName). You can go back to it now."
        )
        if let deviceCookie { response.headers.append(HTTPField(name: .setCookie, value: deviceCookie)) }
        return response
    }

    private enum Found {
        case found(DeviceGrantRecord)
        case refused(Response)
    }

    /// The pending grant of the code the person typed, or the page that says why not. A
    /// code that matches nothing counts against the address; while the address is
    /// blocked, no code is looked up at all.
    private func grant(_ typed: String, app: AppRecord) async -> Found {
        let address = RequestInfo.current.clientAddress(trusting: services.settings.trustedProxies)
        do {
            try await services.throttle.checkUserCodeEntry(address: address)
        } catch {
            return .refused(Self.codeForm(app: app, status: .tooManyRequests, userCode: typed, message: error.message))
        }
        if let code = UserCode.normalized(typed),
            let grant = await api.oauth.pendingDeviceGrant(userCode: code, app: app)
        {
            return .found(grant)
        }
        do {
            try await services.throttle.admitWrongUserCode(address: address)
        } catch {
            return .refused(Self.codeForm(app: app, status: .tooManyRequests, userCode: typed, message: error.message))
        }
        return .refused(
            Self.codeForm(
                app: app,
                status: .badRequest,
                userCode: typed,
                message: "This code is not valid, or it expired. Check it on your device."
            )
        )
    }

    private func deny(_ grant: DeviceGrantRecord, app: AppRecord) async -> Response {
        var grant = grant
        grant.status = .denied
        guard (try? await services.storage.updateDeviceGrant(grant, expecting: .pending)) == true else {
            return Self.donePage(app: app, status: .conflict, "This code was already used. Check your device.")
        }
        services.logger.notice("device authorization denied", metadata: ["app": "\(app.id)"])
        return Self.donePage(app: app, status: .ok, "The request was denied. Your device will say so.")
    }

    // MARK: Pages

    /// The first step: the code, sent back to this page as its query (a form that changes
    /// nothing needs no token).
    static func codeForm(
        app: AppRecord,
        status: HTTPResponse.Status,
        userCode: String = "",
        message: String? = nil
    ) -> Response {
        let alert = message.map { "<p class=\"error\" role=\"alert\">\(OAuthPage.escape($0))</p>" } ?? ""
        let main = """
            <h1>Sign in a device to \(OAuthPage.escape(app.name))</h1>
            <p>Enter the code your device shows.</p>
            \(alert)
            <form method="get">
            <label for="user_code">Code</label>
            <input id="user_code" name="user_code" value="\(OAuthPage.escape(userCode))" required autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="32" autofocus>
            <div class="buttons">
            <button type="submit">Continue</button>
            </div>
            </form>
            """
        return OAuthPage.response(status: status, title: "Sign in a device", main: main)
    }

    /// The second step: which device asked and when, and the person's answer.
    private func approvalForm(
        app: AppRecord,
        grant: DeviceGrantRecord,
        browser: FormGuard.Browser,
        status: HTTPResponse.Status = .ok,
        username: String = "",
        message: String? = nil
    ) async -> Response {
        let name = OAuthPage.escape(app.name)
        let alert = message.map { "<p class=\"error\" role=\"alert\">\(OAuthPage.escape($0))</p>" } ?? ""
        // With an OpenID Connect provider, Approve goes on to sign in there.
        let federated = app.authentication.provider != nil
        let credentials =
            federated
            ? "<p>Approve to sign in with your company account.</p>"
            : """
            <label for="username">User name</label>
            <input id="username" name="username" value="\(OAuthPage.escape(username))" required autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="128" autofocus>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" required autocomplete="current-password" maxlength="1024">
            """
        let code = UserCode.display(grant.userCode)
        let main = """
            <h1>Sign in a device to \(name)</h1>
            <p>\(OAuthPage.deviceAsked(grant, app: app, now: services.now()))</p>
            <p>Code: <strong>\(OAuthPage.escape(code))</strong>. Approve only if you started this \
            on your device and it shows this code.</p>
            \(alert)
            <form method="post">
            <input type="hidden" name="user_code" value="\(OAuthPage.escape(code))">
            \(OAuthPage.tokenField(services.formGuard.token(for: browser, appID: app.id)))
            \(credentials)
            <div class="buttons">
            <button type="submit" name="decision" value="approve"\(federated ? " autofocus" : "")>Approve</button>
            <button type="submit" name="decision" value="deny" formnovalidate class="secondary">Deny</button>
            </div>
            </form>
            """
        var formAction = "'self'"
        if let provider = app.authentication.provider,
            let metadata = try? await services.providers.metadata(issuer: provider.issuer),
            let origin = WebURL.origin(of: metadata.authorizationEndpoint)
        {
            // Chromium applies `form-action` to the redirect after a form.
            formAction += " " + origin
        }
        var response = OAuthPage.response(
            status: status,
            title: "Sign in a device",
            main: main,
            formAction: formAction
        )
        if browser.isNew {
            response.headers.append(HTTPField(name: .setCookie, value: services.formGuard.setCookie(browser)))
        }
        return response
    }

    static func donePage(app: AppRecord, status: HTTPResponse.Status, _ text: String) -> Response {
        let role = status == .ok ? "role=\"status\"" : "class=\"error\" role=\"alert\""
        return OAuthPage.response(
            status: status,
            title: "Sign in a device",
            main: "<h1>\(OAuthPage.escape(app.name))</h1><p \(role)>\(OAuthPage.escape(text))</p>"
        )
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The page where a person approves a device's sign-in (RFC 8628 §3.3):
/// `GET /apps/{appID}/oauth/device[?user_code=…]` shows a form with the user code, the
/// person's user name and password, and Approve and Deny; `POST` the same path decides.
///
/// Plain HTML with no script at all, usable with a keyboard alone and on a phone: labels
/// for every field, the browser's own autofill hints, a viewport for small screens. The
/// answers forbid framing, caching and referrers, and allow nothing to load from
/// anywhere (`Content-Security-Policy: default-src 'none'`). The password goes through
/// the same throttle and bcrypt gate as every other sign-in; user codes entered are
/// counted per address.
struct DeviceVerificationPage: Sendable {
    let api: MobileServicesAPI

    func register(on router: Router<ServerContext>) {
        router.get("/apps/:appID/oauth/device") { request, context in
            await show(request, context: context)
        }
        router.post("/apps/:appID/oauth/device") { request, context in
            await decide(request, context: context)
        }
    }

    private func show(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api) else { return OAuthPage.notFound }
        let typed = request.uri.queryParameters.get("user_code") ?? ""
        return await page(app: app, status: .ok, userCode: UserCode.normalized(typed).map(UserCode.display) ?? "")
    }

    private func decide(_ request: Request, context: ServerContext) async -> Response {
        guard let app = await OAuthPage.app(context, api: api) else { return OAuthPage.notFound }
        var request = request
        guard let body = try? await request.collectBody(upTo: 16 * 1024) else {
            return await page(app: app, status: .contentTooLarge, message: "The form is too large.")
        }
        let form = OAuthPage.form(String(buffer: body))
        let typed = form["user_code"] ?? ""
        let address = RequestInfo.current.clientAddress(trusting: api.settings.trustedProxies)
        do {
            try await api.throttle.admitUserCodeEntry(address: address)
        } catch {
            return await page(app: app, status: .tooManyRequests, userCode: typed, message: error.message)
        }
        guard let code = UserCode.normalized(typed),
            var grant = try? await api.storage.deviceGrant(userCode: code),
            grant.appID == app.id, grant.status == .pending, grant.expiresAt > api.now()
        else {
            return await page(
                app: app,
                status: .badRequest,
                userCode: typed,
                message: "This code is not valid, or it expired. Check it on your device."
            )
        }
        let display = UserCode.display(code)
        if let provider = app.authentication.provider {
            // The person signs in at the app's OpenID Connect provider, which sends them
            // back to approve; denying needs no sign-in.
            guard form["decision"] == "approve" else { return await deny(grant, app: app) }
            return await FederatedSignIn(api: api).start(.deviceGrant(userCode: code), app: app, provider: provider)
        }
        let username = (form["username"] ?? "").lowercased()
        let user: UserRecord
        do {
            user = try await api.checkedUser(
                username: username,
                password: form["password"] ?? "",
                cookieHash: nil,
                appID: app.id
            )
        } catch {
            let answer = (error as? APIError) ?? .signInFailed
            return await page(app: app, status: answer.status, userCode: display, message: answer.message)
        }
        let approves = form["decision"] == "approve"
        grant.status = approves ? .approved : .denied
        grant.username = user.username
        guard (try? await api.storage.updateDeviceGrant(grant, expecting: .pending)) == true else {
            return await page(
                app: app,
                status: .conflict,
                userCode: display,
                message: "This code was already used. Check your device."
            )
        }
        api.logger.notice(
            approves ? "device authorization approved" : "device authorization denied",
            metadata: ["app": "\(app.id)", "request": "\(RequestInfo.current.requestID)"]
        )
        return await page(
            app: app,
            status: .ok,
            done: approves
                ? "Your device is signed in as \(user.displayName). You can go back to it now."
                : "The request was denied. Your device will say so."
        )
    }

    private func deny(_ grant: DeviceGrantRecord, app: AppRecord) async -> Response {
        var grant = grant
        grant.status = .denied
        guard (try? await api.storage.updateDeviceGrant(grant, expecting: .pending)) == true else {
            return await page(app: app, status: .conflict, message: "This code was already used. Check your device.")
        }
        api.logger.notice("device authorization denied", metadata: ["app": "\(app.id)"])
        return await page(app: app, status: .ok, done: "The request was denied. Your device will say so.")
    }

    /// The page for `app`; with an OpenID Connect provider, its form may lead on to the
    /// provider's sign-in (Chromium applies `form-action` to the redirect after a form).
    private func page(
        app: AppRecord,
        status: HTTPResponse.Status,
        userCode: String = "",
        message: String? = nil,
        done: String? = nil
    ) async -> Response {
        var formAction = "'self'"
        if let provider = app.authentication.provider,
            let metadata = try? await api.providers.metadata(issuer: provider.issuer),
            let origin = OAuthPage.origin(of: metadata.authorizationEndpoint)
        {
            formAction += " " + origin
        }
        return Self.page(
            app: app,
            status: status,
            userCode: userCode,
            message: message,
            done: done,
            formAction: formAction
        )
    }

    static func page(
        app: AppRecord,
        status: HTTPResponse.Status,
        userCode: String = "",
        message: String? = nil,
        done: String? = nil,
        formAction: String
    ) -> Response {
        let name = OAuthPage.escape(app.name)
        let main: String
        if let done {
            main = "<h1>\(name)</h1><p role=\"status\">\(OAuthPage.escape(done))</p>"
        } else {
            let alert = message.map { "<p class=\"error\" role=\"alert\">\(OAuthPage.escape($0))</p>" } ?? ""
            // With an OpenID Connect provider, Approve goes on to sign in there.
            let federated = app.authentication.provider != nil
            let credentials =
                federated
                ? ""
                : """
                <label for="username">User name</label>
                <input id="username" name="username" required autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="128" \(userCode.isEmpty ? "" : "autofocus")>
                <label for="password">Password</label>
                <input id="password" name="password" type="password" required autocomplete="current-password" maxlength="1024">
                """
            main = """
                <h1>Sign in a device to \(name)</h1>
                <p>\(federated
                    ? "Enter the code your device shows, then approve to sign in with your company account."
                    : "Enter the code your device shows, then your user name and password.")</p>
                \(alert)
                <form method="post">
                <label for="user_code">Code</label>
                <input id="user_code" name="user_code" value="\(OAuthPage.escape(userCode))" required autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="32" \(userCode.isEmpty || federated ? "autofocus" : "")>
                \(credentials)
                <div class="buttons">
                <button type="submit" name="decision" value="approve">Approve</button>
                <button type="submit" name="decision" value="deny" formnovalidate class="secondary">Deny</button>
                </div>
                </form>
                """
        }
        return Response(
            status: status,
            headers: OAuthPage.headers(formAction: formAction),
            body: .init(byteBuffer: ByteBuffer(string: OAuthPage.document(title: "Sign in a device", main: main)))
        )
    }

}

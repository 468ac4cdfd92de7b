import Foundation
import GangwayForms
import GangwayProtocol
import GangwayQRCode
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The operator's console: server-rendered pages under `/console` for the people who
/// run the server, each signed in with a password and a second factor (TOTP).
///
/// - Operators are added with `gangway admin operators add`, which gives a one-use link
///   to enrol: the person sets a password and scans the second factor's key into an
///   authenticator app; no secret is copied into a browser.
/// - A session is a random cookie (`HttpOnly`, `SameSite=Strict`, `Secure` over HTTPS),
///   kept as its SHA-256 and ended after ``OperatorSessionRecord/idleLifetime`` without
///   a request, and after ``OperatorSessionRecord/absoluteLifetime`` in any case.
/// - Every form carries ``FormGuard``'s token and is refused from another site; pages
///   carry no script and allow nothing from elsewhere. The browser's form secret is new
///   at each sign-in and sign-out, so a token seen before a sign-in is of no use after.
/// - Sign-ins are throttled as the API's are, in a queue of their own: a browser that
///   signed in as the operator before (its cookie) is counted apart from strangers
///   guessing the name, and the devices' sign-ins never keep an operator out. A failed
///   sign-in of an existing operator's name is in the audit.
public struct OperatorConsole: Sendable {
    /// The API's operations, run in process (``run(for:_:_:)``).
    let api: any APIProtocol
    /// What the console asks of the server apart from the operations (``ConsoleServices``).
    let services: any ConsoleServices
    /// Who may run each operation: the console runs one only through
    /// ``run(for:_:_:)``, which asks it.
    let access: any ConsoleAccess
    /// The sign-in through an app's identity provider, as the server runs it for apps.
    let providerSignIn: any ConsoleProviderSignIn
    let templates = ConsoleTemplates()

    public init(
        api: any APIProtocol,
        services: any ConsoleServices,
        access: any ConsoleAccess,
        providerSignIn: any ConsoleProviderSignIn
    ) {
        self.api = api
        self.services = services
        self.access = access
        self.providerSignIn = providerSignIn
    }

    /// The operator's password, at least this long.
    static let minimumPasswordLength = 12
    /// What the anti-forgery token of the console's forms is bound to: no app's ID, which
    /// holds no `:`.
    static let formScope = "console:"

    /// Puts the console's pages and forms on `router`, under ``ConsolePaths``.
    public func register<Parent: RequestContext>(on router: Router<Parent>) {
        router.get(RouterPath(ConsolePaths.styleSheet)) { _, _ in
            var response = Response(
                status: .ok,
                headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(string: ConsoleTemplates.styleSheet))
            )
            response.headers[.xContentTypeOptions] = "nosniff"
            return response
        }
        router.get(RouterPath(ConsolePaths.signIn)) { request, _ in await signInPage(request) }
        router.post(RouterPath(ConsolePaths.signIn)) { request, _ in await signIn(request) }
        router.get(RouterPath(ConsolePaths.enrol)) { request, _ in await enrolPage(request) }
        router.post(RouterPath(ConsolePaths.enrol)) { request, _ in await enrol(request) }
        router.post(RouterPath(ConsolePaths.signOut)) { request, _ in await signOut(request) }
        registerProviderSignIn(on: router)
        // Every other page and form is for a signed-in operator only.
        let signedIn = signedInGroup(of: router)
        page(signedIn, ConsolePaths.root) { request, _, record in await overview(request, record: record) }
        registerUsers(on: signedIn)
        registerDevices(on: signedIn)
        registerApps(on: signedIn)
        registerActivation(on: signedIn)
        registerAppSignIn(on: signedIn)
        registerDestinations(on: signedIn)
        registerOperators(on: signedIn)
        registerData(on: signedIn)
        registerLogs(on: signedIn)
        registerAudit(on: signedIn)
    }

    // MARK: Pages

    private func signInPage(_ request: Request) async -> Response {
        if await signedIn(request) != nil { return Self.redirect(to: ConsolePaths.root) }
        let browser = services.formGuard.browser(request.headers)
        var page = SignInPage(formToken: token(browser), providers: await signInProviders())
        page.isFirstOperator = (try? await services.storage.hasOperators()) == false
        return self.page(page, browser: browser)
    }

    private func signIn(_ request: Request) async -> Response {
        guard case .form(let form, let browser) = await self.form(request) else { return await refused(request) }
        let name = form["name"] ?? ""
        func again(_ message: String, _ status: HTTPResponse.Status) async -> Response {
            page(
                SignInPage(formToken: token(browser), name: name, error: message, providers: await signInProviders()),
                status: status,
                browser: browser
            )
        }
        let presented = BrowserCookie.value(named: knownBrowserCookieName, in: request.headers)
        let checked: OperatorPasswordCheck
        do {
            checked = try await services.checkOperatorPassword(
                name: name,
                password: form["password"] ?? "",
                knownBrowser: presented
            )
        } catch {
            guard let refusal = error as? any ConsoleRefusal else {
                return await again("The server could not check this now. Try again.", .serviceUnavailable)
            }
            var answer = await again(refusal.message, refusal.status)
            if let seconds = refusal.retryAfterSeconds { answer.headers[.retryAfter] = String(seconds) }
            return answer
        }
        let (record, matches) = (checked.record, checked.matches)
        guard matches, let record, let step = secondFactorStep(record, code: form["code"] ?? ""),
            (try? await services.storage.takeTOTPStep(step, operator: record.name)) == true
        else {
            // The name only when it is an operator's: what someone typed there may be their
            // password, typed in the wrong field.
            services.logger.notice(
                "console sign-in failed",
                metadata: [
                    "request": "\(services.requestID)",
                    "operator": "\(record?.name ?? "(no such operator)")",
                    "address": "\(services.clientAddress)",
                ]
            )
            // An operator's name only (never what else was typed there), and only as
            // often as the throttle lets attempts through.
            if let record {
                await services.audit(
                    actor: record.name,
                    via: .console,
                    action: "signInFailed",
                    target: ConsolePaths.signIn
                )
            }
            return await again("The name, password or code is wrong.", .unauthorized)
        }
        await checked.succeeded()
        var opened = await open(session: record, action: "signIn", browser: browser)
        if !checked.isKnownBrowser, let cookie = await services.newKnownBrowser(operator: record.name) {
            opened.headers.append(
                HTTPField(
                    name: .setCookie,
                    value: BrowserCookie.setCookie(
                        name: knownBrowserCookieName,
                        value: cookie,
                        maxAge: Int(DeviceCookieRecord.lifetime.components.seconds),
                        strict: true,
                        secure: services.isSecureOrigin
                    )
                )
            )
        }
        return opened
    }

    private func enrolPage(_ request: Request) async -> Response {
        let token = request.uri.queryParameters.get("token") ?? ""
        let browser = services.formGuard.browser(request.headers)
        guard let record = await enrolling(token) else { return endedLink(browser) }
        return await enrolForm(record, token: token, browser: browser)
    }

    private func enrol(_ request: Request) async -> Response {
        guard case .form(let form, let browser) = await self.form(request) else { return await refused(request) }
        let token = form["token"] ?? ""
        guard let record = await enrolling(token) else { return endedLink(browser) }
        let password = form["password"] ?? ""
        let hash = BearerToken.hash(token)
        let totp = TOTP(secret: services.enrolmentSecret(tokenHash: hash))
        let error: String? =
            if password.unicodeScalars.count < Self.minimumPasswordLength
                || password.unicodeScalars.count > APILimits.password.upperBound
            {
                "The password must be \(Self.minimumPasswordLength) to \(APILimits.password.upperBound) characters long."
            } else if password != form["confirmation"] {
                "The two passwords differ."
            } else if totp.matchingStep(of: form["code"] ?? "", at: services.now()) == nil {
                "The code is not the one the app shows now. Check that the app has the key below, and try again."
            } else {
                nil
            }
        if let error { return await enrolForm(record, token: token, browser: browser, error: error) }
        let step = totp.matchingStep(of: form["code"] ?? "", at: services.now()) ?? 0
        do {
            let passwordHash = try await services.hashPassword(password)
            let sealed = try services.seal(totp.secret, for: Self.totpPurpose)
            guard
                try await services.storage.completeEnrolment(
                    enrolmentHash: hash,
                    passwordHash: passwordHash,
                    sealedTOTPSecret: sealed,
                    at: services.now()
                )
            else { return endedLink(browser) }
            // The code just typed opens nothing again.
            _ = try await services.storage.takeTOTPStep(step, operator: record.name)
        } catch {
            services.logger.error("an operator's enrolment could not be stored", metadata: ["error": "\(error)"])
            return page(
                MessagePage(title: "Not saved", message: "The server could not save this. Try again.", isError: true),
                status: .serviceUnavailable,
                browser: browser
            )
        }
        services.logger.notice("operator enrolled", metadata: ["operator": "\(record.name)"])
        return await open(session: record, action: "enrol", browser: browser)
    }

    private func signOut(_ request: Request) async -> Response {
        guard case .form = await form(request) else { return await refused(request) }
        if let (session, record) = await signedIn(request) {
            try? await services.storage.deleteOperatorSession(tokenHash: session.tokenHash)
            await services.audit(actor: record.name, via: .console, action: "signOut", target: ConsolePaths.signOut)
        }
        var response = Self.redirect(to: ConsolePaths.signIn)
        setSession(nil, on: &response)
        return response
    }

    /// Sets the console's session cookie to `token`, or ends it (`nil`), with a new form
    /// secret: a token seen before the session began or ended is of no use after.
    func setSession(_ token: String?, on response: inout Response) {
        response.headers.append(
            HTTPField(name: .setCookie, value: services.formGuard.setCookie(services.formGuard.newBrowser()))
        )
        response.headers.append(
            HTTPField(
                name: .setCookie,
                value: BrowserCookie.setCookie(
                    name: sessionCookieName,
                    value: token ?? "",
                    maxAge: token == nil ? 0 : nil,
                    strict: true,
                    secure: services.isSecureOrigin
                )
            )
        )
    }

    // MARK: Sessions

    /// The session cookie's name: with the `__Host-` prefix over HTTPS, so no other host
    /// of the domain can set it.
    var sessionCookieName: String { services.isSecureOrigin ? "__Host-gangway_console" : "gangway_console" }

    /// The cookie of a browser an operator signed in with (the server's device cookie), which
    /// outlives the session: with the `__Host-` prefix over HTTPS.
    var knownBrowserCookieName: String {
        services.isSecureOrigin ? "__Host-gangway_console_browser" : "gangway_console_browser"
    }

    /// The purpose the TOTP secret is sealed for under the server key.
    public static let totpPurpose = "operator-totp"

    /// The signed-in operator of the request, seen now.
    func signedIn(_ request: Request) async -> (OperatorSessionRecord, OperatorRecord)? {
        await signedIn(request.headers)
    }

    /// The session and operator whose console cookie `headers` carry, if it is live.
    public func signedIn(_ headers: HTTPFields) async -> (OperatorSessionRecord, OperatorRecord)? {
        guard let token = BrowserCookie.value(named: sessionCookieName, in: headers), token.utf8.count == 43
        else { return nil }
        return try? await services.storage.touchOperatorSession(tokenHash: BearerToken.hash(token), at: services.now())
    }

    /// How a new session's answer takes the browser to the overview.
    enum Landing {
        /// A redirect: for a form of the console's own.
        case redirect
        /// A page that goes on by itself: for a return from another site, after which a
        /// redirect would still be that site's navigation, and the browser would hold back
        /// the new `SameSite=Strict` cookie.
        case page
    }

    /// A new session for `record`, recorded in the audit, and the way to the overview.
    func open(
        session record: OperatorRecord,
        action: String,
        browser: FormGuard.Browser,
        landing: Landing = .redirect
    ) async -> Response {
        let token = BearerToken.random()
        let now = services.now()
        do {
            try await services.storage.insertOperatorSession(
                OperatorSessionRecord(
                    tokenHash: BearerToken.hash(token),
                    operatorName: record.name,
                    createdAt: now,
                    lastSeenAt: now
                )
            )
        } catch {
            return page(
                MessagePage(title: "Not signed in", message: "The server could not open a session.", isError: true),
                status: .serviceUnavailable,
                browser: browser
            )
        }
        await services.audit(actor: record.name, via: .console, action: action, target: ConsolePaths.root)
        services.logger.notice("console session opened", metadata: ["operator": "\(record.name)"])
        var response =
            switch landing {
            case .redirect: Self.redirect(to: ConsolePaths.root)
            case .page:
                page(
                    MessagePage(
                        title: "Signed in",
                        message: "You are signed in as \(record.name).",
                        isError: false,
                        link: ("Go to the overview", ConsolePaths.root),
                        refresh: ConsolePaths.root
                    ),
                    browser: browser
                )
            }
        setSession(token, on: &response)
        return response
    }

    /// The time step of `code` for the operator's second factor, if it is one of now's.
    private func secondFactorStep(_ record: OperatorRecord, code: String) -> Int64? {
        guard let sealed = record.sealedTOTPSecret, record.passwordHash != nil,
            let secret = try? services.open(sealed, for: Self.totpPurpose, plainLength: TOTP.secretLength)
        else { return nil }
        return TOTP(secret: secret).matchingStep(of: code, at: services.now())
    }

    /// The operator whose enrolment link holds `token`, while it works.
    private func enrolling(_ token: String) async -> OperatorRecord? {
        guard token.utf8.count == 43 else { return nil }
        return try? await services.storage.operatorRecord(enrolmentHash: BearerToken.hash(token), at: services.now())
    }

    private func enrolForm(
        _ record: OperatorRecord,
        token: String,
        browser: FormGuard.Browser,
        error: String? = nil
    ) async -> Response {
        let totp = TOTP(secret: services.enrolmentSecret(tokenHash: BearerToken.hash(token)))
        let address = totp.provisioningURI(account: record.name, issuer: "Gangway")
        let qrCode = QRCodes.svgImage(address, title: "QR code of the key below")
        let page = EnrolPage(
            formToken: self.token(browser),
            token: token,
            name: record.name,
            secret: Base32.grouped(Base32.encode(totp.secret)),
            qrCode: qrCode,
            minimumPasswordLength: Self.minimumPasswordLength,
            error: error
        )
        return self.page(page, status: error == nil ? .ok : .badRequest, browser: browser)
    }

    private func endedLink(_ browser: FormGuard.Browser) -> Response {
        page(
            MessagePage(
                title: "Link ended",
                message: "This link has ended or was used already. Ask an admin for a new one "
                    + "(gangway admin operators enrol NAME).",
                isError: true,
                link: ("Sign in", ConsolePaths.signIn)
            ),
            status: .notFound,
            browser: browser
        )
    }

    /// The answer for a page of something that does not exist.
    func notFound(_ browser: FormGuard.Browser) -> Response {
        page(
            MessagePage(
                title: "Not found",
                message: "There is nothing here.",
                isError: true,
                link: ("Overview", ConsolePaths.root)
            ),
            status: .notFound,
            browser: browser
        )
    }

    /// The answer when the database cannot be read.
    func unavailable() -> Response {
        page(
            MessagePage(title: "Unavailable", message: "The database cannot be read now.", isError: true),
            status: .serviceUnavailable
        )
    }

    // MARK: Forms and answers

    enum Form {
        case form([String: String], FormGuard.Browser)
        case refused
    }

    /// The fields of the request's form, when it came from the console's own page in this
    /// browser.
    func form(_ request: Request) async -> Form {
        var request = request
        // The gateway took the body within the caller's limit: a signed-in operator's form
        // may hold what the API takes (an entity's fields), anyone else's far less.
        guard let body = try? await request.collectBody(upTo: services.maximumBodySize) else {
            return .refused
        }
        let fields = FormBody.fields(body)
        guard services.formGuard.refusal(request.head, fields: fields, appID: Self.formScope) == nil else {
            return .refused
        }
        return .form(fields, services.formGuard.browser(request.headers))
    }

    /// The answer to a form that did not come from the console's own page: 403, nothing done.
    func refused(_ request: Request) async -> Response {
        services.logger.warning("console form refused", metadata: ["request": "\(services.requestID)"])
        let browser = services.formGuard.browser(request.headers)
        return page(
            MessagePage(
                title: "Not sent",
                message: "This form was not sent from this console's own page, so nothing was done. "
                    + "Open the page again and send it from there.",
                isError: true,
                link: ("Sign in", ConsolePaths.signIn)
            ),
            status: .forbidden,
            browser: browser
        )
    }

    /// What the action named in the request's query (`done`) did, from `notices`: in the
    /// server's words, never text from the query.
    static func notice(_ request: Request, _ notices: [String: String]) -> String? {
        request.uri.queryParameters.get("done").flatMap { notices[String($0)] }
    }

    /// Whether `record`'s role reaches the one `operation` needs (``ConsoleAccess``) on
    /// `target`; a refusal is recorded in the audit as `refused`, naming the operation and
    /// the role it needs, so an operator's attempts beyond their role leave a trace as
    /// their actions do.
    func permits(_ record: OperatorRecord, _ operation: String, on target: String) async -> Bool {
        do {
            try access.check(operator: record.name, role: record.role, for: operation)
            return true
        } catch {
            let needed = access.role(for: operation)?.rawValue ?? "admin token"
            services.noteInAudit("\(operation) needs the \(needed) role; the operator is a \(record.role.rawValue)")
            // The target holds what the form named: kept short, control characters shown escaped.
            await services.audit(
                actor: record.name,
                via: .console,
                action: "refused",
                target: TextRules.shown(target, limit: 200)
            )
            return false
        }
    }

    /// Runs the operation `operationID` for the operator `record` in process, as the API
    /// would for a caller with their role: the access check first (``ConsoleAccess``), as
    /// the HTTP gate makes it; a refusal throws the access check's refusal (a ``ConsoleRefusal``).
    func run<Result>(
        for record: OperatorRecord,
        _ operationID: String,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try access.check(operator: record.name, role: record.role, for: operationID)
        return try await services.runOperation(body)
    }

    /// The page that asks before `form` does what cannot be undone, or `nil` when the form
    /// came from that page (``ConfirmPage/isConfirmed(_:)``).
    ///
    /// - Parameters:
    ///   - consequence: What will happen, and what cannot be undone.
    ///   - button: What the danger button says ("Wipe the device").
    ///   - back: The page the action came from, where Cancel leads.
    func confirmation(
        of form: [String: String],
        to action: String,
        title: String,
        consequence: String,
        button: String,
        back: String,
        record: OperatorRecord,
        browser: FormGuard.Browser,
        current: String
    ) -> Response? {
        guard !ConfirmPage.isConfirmed(form) else { return nil }
        let page = ConfirmPage(
            title: title,
            consequence: consequence,
            action: action,
            fields: form.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            button: button,
            back: back,
            formToken: token(browser),
            signedIn: header(record, browser: browser, current: current)
        )
        return self.page(page, browser: browser)
    }

    func header(_ record: OperatorRecord, browser: FormGuard.Browser, current: String) -> SignedInOperator {
        SignedInOperator(name: record.name, role: record.role.rawValue, formToken: token(browser), current: current)
    }

    func token(_ browser: FormGuard.Browser) -> String {
        services.formGuard.token(for: browser, appID: Self.formScope)
    }

    /// `page` as HTML with the console's headers, giving the browser its form secret when
    /// it is new.
    func page(
        _ page: some ConsolePage,
        status: HTTPResponse.Status = .ok,
        browser: FormGuard.Browser? = nil
    ) -> Response {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
            .contentSecurityPolicy:
                "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
                + "frame-ancestors 'none'; base-uri 'none'",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("Referrer-Policy")!: "same-origin",
            .xContentTypeOptions: "nosniff",
        ]
        if let browser, browser.isNew {
            headers.append(HTTPField(name: .setCookie, value: services.formGuard.setCookie(browser)))
        }
        return Response(
            status: status,
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: templates.render(page)))
        )
    }

    static func redirect(to path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path, .cacheControl: "no-store"])
    }
}

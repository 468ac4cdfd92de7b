import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird
import Logging

/// Signing in to the console through the company's OpenID Connect provider, where the
/// server federates already: an operator linked to a person of an app's provider
/// (`gangway admin operators link`) signs in there, and the provider's own sign-in (and
/// its second factor) stands for the operator's password and code.
///
/// The sign-in is the app's federated sign-in (``ConsoleProviderSignIn``) with the console as
/// its origin: the app's client at the provider, PKCE, a nonce, a state finished once and
/// bound to the browser that started it by a cookie sent to the console's callback alone.
/// A person is an operator only by an admin's link of their issuer and subject, never by
/// a name or an email address, and the provider never creates one.
extension OperatorConsole {
    /// What a console sign-in keeps while the person is at the provider: the issuer it
    /// was sent to, so an answer after the app's provider changed finishes nothing.
    struct ProviderOrigin: Codable {
        var console: String
    }

    func registerProviderSignIn<Parent: RequestContext>(on router: Router<Parent>) {
        router.get(RouterPath(ConsolePaths.providerSignIn)) { request, _ in await departToProvider(request) }
        router.get(RouterPath(ConsolePaths.providerCallback)) { request, _ in await backFromProvider(request) }
    }

    /// Where the provider sends the browser back to: to be registered at the provider as a
    /// redirect URI of the app's client.
    var providerCallbackURL: String { services.consoleURL(ConsolePaths.providerCallback) }

    /// The providers the sign-in page offers: each issuer an operator is linked to, through
    /// the first app (by ID) whose provider it is.
    func signInProviders() async -> [SignInPage.Provider] {
        guard let issuers = try? await services.storage.linkedIssuers(.operator), !issuers.isEmpty,
            let apps = try? await services.storage.apps()
        else { return [] }
        return issuers.compactMap { issuer in
            guard
                let app = apps.sorted(by: { $0.id < $1.id }).first(where: {
                    $0.authentication.provider?.issuer == issuer
                })
            else { return nil }
            return SignInPage.Provider(appID: app.id, host: URLComponents(string: issuer)?.host ?? issuer)
        }
    }

    /// Sends the browser to the provider. A link, not a form: the console's pages let a
    /// form lead nowhere but the console (`form-action 'self'`, which Chromium applies to
    /// the redirect after it too), and a sign-in started from another site does no harm:
    /// it is bound to the browser that started it, which must sign in at the provider
    /// itself.
    private func departToProvider(_ request: Request) async -> Response {
        let browser = services.formGuard.browser(request.headers)
        let appID = request.uri.queryParameters.get("app") ?? ""
        guard let app = try? await services.storage.app(id: appID), let provider = app.authentication.provider,
            (try? await services.storage.linkedIssuers(.operator))?.contains(provider.issuer) == true
        else {
            return await signInAgain(
                browser,
                "No operator signs in through that provider. Sign in with your password and code.",
                .badRequest
            )
        }
        do {
            return try await providerSignIn.depart(
                for: app,
                keeping: ProviderOrigin(console: provider.issuer),
                back: providerCallbackURL,
                cookiePath: ConsolePaths.providerCallback
            )
        } catch {
            services.logger.error(
                "identity provider unavailable",
                metadata: ["app": "\(app.id)", "reason": "\(error.description)"]
            )
            return await signInAgain(browser, Self.providerUnavailable, .serviceUnavailable)
        }
    }

    private func backFromProvider(_ request: Request) async -> Response {
        let browser = services.formGuard.browser(request.headers)
        var response = await settle(request, browser: browser)
        // The sign-in is over, however it ended: the browser forgets its binding.
        response.headers.append(
            HTTPField(
                name: .setCookie,
                value: providerSignIn.forgetBinding(path: ConsolePaths.providerCallback)
            )
        )
        return response
    }

    private func settle(_ request: Request, browser: FormGuard.Browser) async -> Response {
        let query = request.uri.queryParameters
        let record: FederatedSignInRecord
        do {
            record = try await providerSignIn.take(state: query.get("state"), request: request)
        } catch {
            switch error {
            case .stale, .refused: return await signInAgain(browser, Self.staleSignIn, .badRequest)
            case .unavailable: return await signInAgain(browser, Self.providerUnavailable, .serviceUnavailable)
            case .anotherBrowser:
                return await signInAgain(
                    browser,
                    "This sign-in was started in another browser. Start again here.",
                    .badRequest
                )
            }
        }
        guard let origin = try? JSONDecoder().decode(ProviderOrigin.self, from: Data(record.origin.utf8)),
            let app = try? await services.storage.app(id: record.appID), let provider = app.authentication.provider,
            provider.issuer == origin.console
        else { return await signInAgain(browser, Self.staleSignIn, .badRequest) }
        // RFC 9207: an answer that says it comes from another issuer is a mix-up attack.
        if let issuer = query.get("iss"), issuer != provider.issuer {
            return await failed(browser, app: app, reason: .refused("the answer names another issuer"))
        }
        if query.get("error") != nil {
            return await signInAgain(browser, "The sign-in was cancelled at the sign-in service.", .forbidden)
        }
        guard let code = query.get("code"), !code.isEmpty else {
            return await failed(browser, app: app, reason: .refused("the answer holds no code"))
        }
        let identity: (issuer: String, subject: String)
        do {
            identity = try await providerSignIn.identity(of: record, code: code, app: app, back: providerCallbackURL)
        } catch {
            return await failed(browser, app: app, reason: error)
        }
        let found: (IdentityLinkRecord, OperatorRecord)?
        do {
            found = try await services.storage.operatorRecord(issuer: identity.issuer, subject: identity.subject)
        } catch {
            return await signInAgain(browser, Self.providerUnavailable, .serviceUnavailable)
        }
        guard let (_, record) = found else {
            services.logger.notice(
                "console sign-in of a provider identity no operator is linked to",
                metadata: ["issuer": "\(identity.issuer)", "subject": "\(identity.subject)"]
            )
            return await signInAgain(
                browser,
                "You signed in at the sign-in service, but no operator is linked to you there. Ask an admin to link "
                    + "you: gangway admin operators link NAME --issuer \(identity.issuer) --subject \(identity.subject)",
                .forbidden
            )
        }
        return await open(session: record, action: "signInThroughProvider", browser: browser, landing: .page)
    }

    /// The answer's checks failed: the reason goes to the log, not the page.
    private func failed(
        _ browser: FormGuard.Browser,
        app: AppRecord,
        reason: ProviderSignInFailure
    ) async -> Response {
        if case .unavailable = reason {
            services.logger.error(
                "identity provider unavailable",
                metadata: ["app": "\(app.id)", "reason": "\(reason.description)"]
            )
            return await signInAgain(browser, Self.providerUnavailable, .serviceUnavailable)
        }
        services.logger.error(
            "console sign-in through the provider refused",
            metadata: [
                "app": "\(app.id)", "reason": "\(reason.description)", "request": "\(services.requestID)",
            ]
        )
        return await signInAgain(
            browser,
            "The sign-in service's answer did not pass the server's checks, so no one was signed in. The server's "
                + "log says why.",
            .badGateway
        )
    }

    /// The sign-in page again, saying why.
    func signInAgain(_ browser: FormGuard.Browser, _ message: String, _ status: HTTPResponse.Status) async -> Response {
        page(
            SignInPage(formToken: token(browser), error: message, providers: await signInProviders()),
            status: status,
            browser: browser
        )
    }

    private static let staleSignIn = "This sign-in expired or was already finished. Start again."
    private static let providerUnavailable = "The sign-in service cannot be reached. Try again in a moment."
}

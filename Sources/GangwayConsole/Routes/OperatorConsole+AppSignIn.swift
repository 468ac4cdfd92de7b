import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's page of how an app's people sign in: read by every operator, saved by an
/// admin through the admin API's own `PUT /admin/apps/{appID}/authentication`, as
/// `gangway admin auth` does.
extension OperatorConsole {
    func registerAppSignIn<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.apps + "/:appID/sign-in") { request, context, record in
            await signInSettings(request, record: record, appID: try context.parameters.require("appID"))
        }
        action(router, ConsolePaths.apps + "/:appID/sign-in") { request, context, sent in
            await changeSignIn(request, sent, appID: try context.parameters.require("appID"))
        }
    }

    /// The app's name and authentication as the admin API gives them; `nil` for no such app.
    private func authentication(
        _ appID: String,
        for record: OperatorRecord
    ) async throws -> (name: String, authentication: Components.Schemas.AppAuthentication)? {
        do {
            let app = try await run(
                for: record,
                "getApp",
                { try await api.getApp(.init(path: .init(appID: appID))) }
            ).ok.body.json
            let authentication = try await run(
                for: record,
                "getAppAuthentication",
                { try await api.getAppAuthentication(.init(path: .init(appID: appID))) }
            ).ok.body.json
            return (app.name, authentication)
        } catch let error as any ConsoleRefusal where error.status == .notFound {
            return nil
        }
    }

    private func signInSettings(_ request: Request, record: OperatorRecord, appID: String) async -> Response {
        let browser = services.formGuard.browser(request.headers)
        let found: (name: String, authentication: Components.Schemas.AppAuthentication)?
        do { found = try await authentication(appID, for: record) } catch { return unavailable() }
        guard let found else { return notFound(browser) }
        return appSignInPage(
            appID,
            found,
            values: Self.values(of: found.authentication),
            record: record,
            browser: browser
        )
    }

    private func appSignInPage(
        _ appID: String,
        _ found: (name: String, authentication: Components.Schemas.AppAuthentication),
        values: AppSignInPage.Values,
        record: OperatorRecord,
        browser: FormGuard.Browser,
        error: String? = nil,
        status: HTTPResponse.Status = .ok,
        consequences: [String]? = nil
    ) -> Response {
        let provider = found.authentication.provider
        let page = AppSignInPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.apps),
            appID: appID,
            name: found.name,
            action: ConsolePaths.signInSettings(appID),
            values: values,
            hasClientSecret: provider?.hasClientSecret == true && provider?.issuer == values.issuer
                && provider?.clientID == values.clientID,
            providerRedirect: provider?.redirectURI,
            consoleRedirect: providerCallbackURL,
            canEdit: record.role >= .admin,
            error: error,
            consequences: consequences
        )
        return self.page(page, status: status, browser: browser)
    }

    static func values(of authentication: Components.Schemas.AppAuthentication) -> AppSignInPage.Values {
        AppSignInPage.Values(
            type: authentication._type.rawValue,
            issuer: authentication.provider?.issuer ?? "",
            clientID: authentication.provider?.clientID ?? "",
            createsUsers: authentication.provider?.createsUsers ?? false,
            redirectURIs: authentication.redirectURIs
        )
    }

    /// Saves the whole sign-in, as `PUT /admin/apps/{appID}/authentication` does, for an admin.
    private func changeSignIn(_ request: Request, _ sent: SentForm, appID: String) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        let found: (name: String, authentication: Components.Schemas.AppAuthentication)?
        do { found = try await authentication(appID, for: record) } catch { return unavailable() }
        guard let found else { return notFound(browser) }
        func trimmed(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        // What was typed, shown again after a refusal; never the secret.
        let typed = AppSignInPage.Values(
            type: form["type"] ?? "",
            issuer: trimmed("issuer"),
            clientID: trimmed("clientID"),
            createsUsers: form["createsUsers"] == "on",
            redirectURIs: (form["redirectURIs"] ?? "").split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        )
        func again(_ message: String, _ status: HTTPResponse.Status) -> Response {
            appSignInPage(appID, found, values: typed, record: record, browser: browser, error: message, status: status)
        }
        guard await permits(record, "setAppAuthentication", on: "/admin/apps/\(appID)/authentication") else {
            return again("Only an admin changes how people sign in: ask an admin for the role.", .forbidden)
        }
        guard let type = Components.Schemas.AuthenticationType(rawValue: typed.type) else {
            return again("Choose basic or OAuth 2.0.", .badRequest)
        }
        var provider: Components.Schemas.IdentityProviderChange?
        if !typed.issuer.isEmpty || !typed.clientID.isEmpty {
            guard !typed.issuer.isEmpty, !typed.clientID.isEmpty else {
                return again("A provider needs both its issuer URL and the client ID it gave this server.", .badRequest)
            }
            // With basic, the provider the app has is kept for a later return to OAuth 2.0
            // (as `gangway admin auth --type basic` keeps it); a new one is not set.
            let kept = found.authentication.provider.map { $0.issuer == typed.issuer && $0.clientID == typed.clientID }
            guard type == .oauth2 || kept == true else {
                return again(
                    "A provider signs people in through OAuth 2.0: choose OAuth 2.0, or leave the provider empty.",
                    .badRequest
                )
            }
            let secret = form["clientSecret"] ?? ""
            provider = .init(
                issuer: typed.issuer,
                clientID: typed.clientID,
                clientSecret: secret.isEmpty ? nil : secret,
                createsUsers: typed.createsUsers,
                // The form does not show them: the same provider keeps its claims.
                attributeClaims: kept == true
                    ? found.authentication.provider?.attributeClaims.map {
                        .init(additionalProperties: $0.additionalProperties)
                    }
                    : nil
            )
        }
        let change = Components.Schemas.AppAuthenticationChange(
            _type: type,
            provider: provider,
            redirectURIs: typed.redirectURIs
        )
        let saved: Components.Schemas.AppAuthentication
        do {
            saved = try await run(for: record, "setAppAuthentication") {
                try await api.setAppAuthentication(.init(path: .init(appID: appID), body: .json(change)))
            }.ok.body.json
        } catch let refused as any ConsoleRefusal {
            return again(refused.message, refused.status)
        } catch {
            return unavailable()
        }
        let target = "/admin/apps/\(appID)/authentication"
        await services.audit(actor: record.name, via: .console, action: "setAppAuthentication", target: target)
        return appSignInPage(
            appID,
            (found.name, saved),
            values: Self.values(of: saved),
            record: record,
            browser: browser,
            consequences: Self.signInConsequences(old: found.authentication, new: saved)
        )
    }

    /// What changes for the app's people, one sentence per change.
    static func signInConsequences(
        old: Components.Schemas.AppAuthentication,
        new: Components.Schemas.AppAuthentication
    ) -> [String] {
        var said: [String] = []
        if old._type != new._type {
            said.append(
                new._type == .oauth2
                    ? "From their next sign-in, people sign in through OAuth 2.0; a password sent to the app's "
                        + "sign-in route is refused, and sessions already open go on until they end."
                    : "From their next sign-in, people sign in with their user name and password."
            )
        }
        if old.provider?.issuer != new.provider?.issuer || old.provider?.clientID != new.provider?.clientID {
            if let provider = new.provider {
                said.append(
                    "People sign in at \(provider.issuer); register \(provider.redirectURI ?? "this server's redirect URI") there."
                )
            } else if new._type == .oauth2 {
                said.append("People sign in as this server's own users, on its sign-in page.")
            }
        } else if old.provider?.createsUsers != new.provider?.createsUsers, let provider = new.provider {
            said.append(
                provider.createsUsers
                    ? "A person the provider knows and this server does not gets a user at their first sign-in."
                    : "Only people linked to a user of this server sign in through the provider."
            )
        }
        if old.redirectURIs != new.redirectURIs {
            said.append(
                "The app's redirect URIs are now: \(new.redirectURIs.isEmpty ? "none" : new.redirectURIs.joined(separator: ", "))."
            )
        }
        return said.isEmpty ? ["Nothing changed."] : said
    }
}

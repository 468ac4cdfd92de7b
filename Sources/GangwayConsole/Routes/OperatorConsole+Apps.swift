import Foundation
import GangwayForms
import GangwayPolicy
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's apps: each app's settings exchange as one form, read by every operator
/// and changed by an admin through the admin API's own `PATCH /admin/apps/{appID}`; after
/// a change, the page says what devices do at their next contact.
extension OperatorConsole {
    func registerApps<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.apps) { request, _, record in await apps(request, record: record) }
        action(router, ConsolePaths.apps) { request, _, sent in await createApp(request, sent) }
        page(router, ConsolePaths.apps + "/:appID") { request, context, record in
            await app(request, record: record, appID: try context.parameters.require("appID"))
        }
        action(router, ConsolePaths.apps + "/:appID") { request, context, sent in
            await change(request, sent, appID: try context.parameters.require("appID"))
        }
    }

    private func apps(_ request: Request, record: OperatorRecord) async -> Response {
        return await appsPage(record, browser: services.formGuard.browser(request.headers))
    }

    private func appsPage(
        _ record: OperatorRecord,
        browser: FormGuard.Browser,
        newApp: AppsPage.NewApp = .init(),
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async -> Response {
        guard let apps = try? await run(for: record, "listApps", { try await api.listApps(.init()) }).ok.body.json
        else { return unavailable() }
        let page = AppsPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.apps),
            apps: apps.map {
                AppsPage.Row(
                    id: $0.appID,
                    name: $0.name,
                    signInType: $0.authType.rawValue,
                    minimumVersion: $0.minimumVersion ?? "",
                    path: ConsolePaths.app($0.appID)
                )
            },
            canCreate: record.role >= .admin,
            newApp: newApp,
            error: error
        )
        return self.page(page, status: status, browser: browser)
    }

    /// Adds an app with the server's default settings, as `POST /admin/apps` does, for an
    /// admin; then shows its settings.
    private func createApp(_ request: Request, _ sent: SentForm) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        func trimmed(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        let typed = AppsPage.NewApp(id: trimmed("appID"), name: trimmed("name"), emailDomains: trimmed("emailDomains"))
        guard await permits(record, "createApp", on: "/admin/apps") else {
            return await appsPage(
                record,
                browser: browser,
                newApp: typed,
                error: "Only an admin adds apps: ask an admin for the role.",
                status: .forbidden
            )
        }
        let body = Components.Schemas.AppCreate(
            appID: typed.id,
            name: typed.name,
            emailDomains: AppSettingsForm.list(typed.emailDomains)
        )
        do {
            _ = try await run(for: record, "createApp") { try await api.createApp(.init(body: .json(body))) }
        } catch let refused as any ConsoleRefusal {
            return await appsPage(
                record,
                browser: browser,
                newApp: typed,
                error: refused.message,
                status: refused.status
            )
        } catch {
            return unavailable()
        }
        await services.audit(actor: record.name, via: .console, action: "createApp", target: "/admin/apps")
        return Self.redirect(to: ConsolePaths.app(typed.id))
    }

    /// The app as the admin API gives it, or `nil` when there is no such app.
    private func wireApp(_ appID: String, for record: OperatorRecord) async throws -> Components.Schemas.App? {
        do {
            return try await run(for: record, "getApp") { try await api.getApp(.init(path: .init(appID: appID))) }
                .ok.body.json
        } catch let error as any ConsoleRefusal where error.status == .notFound {
            return nil
        }
    }

    private func app(_ request: Request, record: OperatorRecord, appID: String) async -> Response {
        let browser = services.formGuard.browser(request.headers)
        let found: Components.Schemas.App?
        do { found = try await wireApp(appID, for: record) } catch { return unavailable() }
        guard let app = found else { return notFound(browser) }
        return await settingsPage(app, values: AppSettingsForm.values(of: app), record: record, browser: browser)
    }

    private func settingsPage(
        _ app: Components.Schemas.App,
        values: [String: String],
        record: OperatorRecord,
        browser: FormGuard.Browser,
        error: String? = nil,
        refusal: AppSettingsForm.Invalid? = nil,
        status: HTTPResponse.Status = .ok,
        consequences: [String]? = nil
    ) async -> Response {
        let provider = try? await run(for: record, "getAppAuthentication") {
            try await api.getAppAuthentication(.init(path: .init(appID: app.appID)))
        }.ok.body.json.provider?.issuer
        let canEdit = record.role >= .admin
        let policy = try? app.settings.passwordPolicy?.policy()
        let page = AppSettingsPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.apps),
            appID: app.appID,
            name: app.name,
            action: ConsolePaths.app(app.appID),
            sections: AppSettingsForm.pageSections(values, canEdit: canEdit, refusal: refusal),
            checklist: (policy?.rules ?? []).map { Self.sentence($0.summary) },
            signInType: app.authType.rawValue,
            provider: provider,
            canEdit: canEdit,
            error: error,
            consequences: consequences
        )
        return self.page(page, status: status, browser: browser)
    }

    /// Saves every setting of the form, as `PATCH /admin/apps/{appID}` does, for an admin.
    private func change(_ request: Request, _ sent: SentForm, appID: String) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        let found: Components.Schemas.App?
        do { found = try await wireApp(appID, for: record) } catch { return unavailable() }
        guard let old = found else { return notFound(browser) }
        guard await permits(record, "updateApp", on: "/admin/apps/\(appID)") else {
            return await settingsPage(
                old,
                values: AppSettingsForm.values(of: old),
                record: record,
                browser: browser,
                error: "Only an admin changes an app's settings: ask an admin for the role.",
                status: .forbidden
            )
        }
        let new: Components.Schemas.App
        do {
            let update = try AppSettingsForm.update(from: form, current: old)
            // Turning passcode reset off destroys every recovery secret of the app's devices.
            let keptData = old.settings.recoverySettings?.passcodeResetKeepsData ?? APIDefaults.passcodeResetKeepsData
            if keptData, update.settings?.recoverySettings?.passcodeResetKeepsData == false,
                let asking = confirmation(
                    of: form,
                    to: ConsolePaths.app(appID),
                    title: "Turn off keeping data at a passcode reset?",
                    consequence: "The server destroys the recovery secret of every device of \(appID) at once: from "
                        + "then on, a person who forgets their passcode loses the data on their device, changes not "
                        + "yet sent included. Turning it on again does not bring the secrets back. The rest of the "
                        + "form is saved with it.",
                    button: "Turn it off and save",
                    back: ConsolePaths.app(appID),
                    record: record,
                    browser: browser,
                    current: ConsolePaths.apps
                )
            {
                return asking
            }
            new = try await run(for: record, "updateApp") {
                try await api.updateApp(.init(path: .init(appID: appID), body: .json(update)))
            }.ok.body.json
        } catch {
            // The form as it was sent, so nothing typed is lost; the refusal in the form's
            // words, beside the setting it is about, and named at the top.
            let refusal =
                (error as? AppSettingsForm.Invalid)
                ?? (error as? any ConsoleRefusal).map { AppSettingsForm.inFormWords($0.message) }
            let status =
                error is AppSettingsForm.Invalid
                ? .badRequest : (error as? any ConsoleRefusal)?.status ?? .serviceUnavailable
            let summary =
                refusal.map { refused in
                    refused.key == nil ? refused.message : "Not saved: one setting needs another value (marked below)."
                } ?? "The server could not save this now."
            return await settingsPage(
                old,
                values: form,
                record: record,
                browser: browser,
                error: summary,
                refusal: refusal,
                status: status
            )
        }
        await services.audit(actor: record.name, via: .console, action: "updateApp", target: "/admin/apps/\(appID)")
        return await settingsPage(
            new,
            values: AppSettingsForm.values(of: new),
            record: record,
            browser: browser,
            consequences: AppSettingsChange(old: old, new: new).consequences
        )
    }

    /// `text` with its first letter capitalised, as an item of a checklist.
    static func sentence(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}

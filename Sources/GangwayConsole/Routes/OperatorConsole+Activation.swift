import Foundation
import GangwayForms
import GangwayProtocol
import GangwayQRCode
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's activation: an operator or admin makes an app's signed activation link
/// through the admin API's own `POST /admin/apps/{appID}/activations`, and the page shows
/// it with its QR code (drawn by the server, as SVG), ready to print.
extension OperatorConsole {
    func registerActivation<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.apps + "/:appID/activation") { request, context, record in
            await activation(request, record: record, appID: try context.parameters.require("appID"))
        }
        action(router, ConsolePaths.apps + "/:appID/activation") { request, context, sent in
            await makeActivation(request, sent, appID: try context.parameters.require("appID"))
        }
    }

    /// The days a link activates when the operator does not say.
    static let activationDays = 7

    private func activation(_ request: Request, record: OperatorRecord, appID: String) async -> Response {
        let browser = services.formGuard.browser(request.headers)
        let found: AppRecord?
        do { found = try await services.storage.app(id: appID) } catch { return unavailable() }
        guard let app = found else { return notFound(browser) }
        return activationPage(app, record: record, browser: browser, days: String(Self.activationDays))
    }

    private func activationPage(
        _ app: AppRecord,
        record: OperatorRecord,
        browser: FormGuard.Browser,
        days: String,
        status: HTTPResponse.Status = .ok,
        error: String? = nil,
        made: Components.Schemas.Activation? = nil
    ) -> Response {
        let page = ActivationPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.apps),
            appID: app.id,
            name: app.name,
            action: ConsolePaths.activation(app.id),
            days: days,
            dayRange: APILimits.activationValidDays,
            canAct: record.role >= .operator,
            error: error,
            link: made?.link,
            qrCode: made.flatMap { QRCodes.svgImage($0.link, title: "QR code of the activation link") },
            expires: made?.configuration.activationExpiresAt.map(Self.minute)
        )
        return self.page(page, status: status, browser: browser)
    }

    private func makeActivation(_ request: Request, _ sent: SentForm, appID: String) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        let found: AppRecord?
        do { found = try await services.storage.app(id: appID) } catch { return unavailable() }
        guard let app = found else { return notFound(browser) }
        let days = form["days"] ?? ""
        guard await permits(record, "createActivation", on: "/admin/apps/\(appID)/activations") else {
            return activationPage(
                app,
                record: record,
                browser: browser,
                days: days,
                status: .forbidden,
                error: "A viewer reads only: ask an admin for the operator role to make activation links."
            )
        }
        let range = APILimits.activationValidDays
        guard let validDays = Int(days.trimmingCharacters(in: .whitespaces)) else {
            return activationPage(
                app,
                record: record,
                browser: browser,
                days: days,
                status: .badRequest,
                error: "Give the days as a whole number from \(range.lowerBound) to \(range.upperBound)."
            )
        }
        let activation: Components.Schemas.Activation
        do {
            activation = try await run(for: record, "createActivation") {
                try await api.createActivation(.init(path: .init(appID: appID), query: .init(validDays: validDays)))
            }.created.body.json
        } catch {
            return activationPage(
                app,
                record: record,
                browser: browser,
                days: days,
                status: (error as? any ConsoleRefusal)?.status ?? .serviceUnavailable,
                error: (error as? any ConsoleRefusal)?.message ?? "The server could not make a link now."
            )
        }
        await services.audit(
            actor: record.name,
            via: .console,
            action: "createActivation",
            target: "/admin/apps/\(appID)/activations"
        )
        return activationPage(app, record: record, browser: browser, days: days, made: activation)
    }
}

import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's page of an app's destinations: read by every operator through the admin
/// API's own `GET /admin/apps/{appID}/destinations`, added, changed and removed by an
/// admin through its `PUT` and `DELETE`, as `gangway admin destinations` does.
extension OperatorConsole {
    func registerDestinations<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.apps + "/:appID/destinations") { request, context, record in
            await destinationsPage(
                try context.parameters.require("appID"),
                record: record,
                browser: services.formGuard.browser(request.headers),
                notice: Self.notice(request, Self.destinationNotices)
            )
        }
        action(router, ConsolePaths.apps + "/:appID/destinations") { request, context, sent in
            await changeDestinations(request, sent, appID: try context.parameters.require("appID"))
        }
    }

    static let destinationNotices = [
        "put": "Saved the destination.",
        "remove": "Removed the destination: devices reach it no more, and its credential is gone.",
    ]

    private func destinationsPage(
        _ appID: String,
        record: OperatorRecord,
        browser: FormGuard.Browser,
        typed: AppDestinationsPage.Typed = .init(),
        notice: String? = nil,
        error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async -> Response {
        let app: Components.Schemas.App
        let listed: [Components.Schemas.Destination]
        do {
            let found = try await run(
                for: record,
                "getApp",
                { try await api.getApp(.init(path: .init(appID: appID))) }
            ).ok.body.json
            let destinations = try await run(
                for: record,
                "listDestinations",
                { try await api.listDestinations(.init(path: .init(appID: appID))) }
            ).ok.body.json
            (app, listed) = (found, destinations)
        } catch let refused as any ConsoleRefusal where refused.status == .notFound {
            return notFound(browser)
        } catch {
            return unavailable()
        }
        var page = AppDestinationsPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.apps),
            appID: appID,
            name: app.name,
            action: ConsolePaths.destinations(appID),
            destinations: listed.map {
                AppDestinationsPage.Destination(
                    name: $0.name,
                    url: $0.url,
                    credentialHeader: $0.authentication == .credential ? $0.credentialHeader : nil,
                    requests: $0.requests.map { (Int($0.status), Int($0.count)) }
                )
            },
            typed: typed,
            canEdit: record.role >= .admin,
            error: error
        )
        page.notice = notice
        return self.page(page, status: status, browser: browser)
    }

    /// Puts or removes a destination, for an admin; then shows the list again.
    private func changeDestinations(_ request: Request, _ sent: SentForm, appID: String) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        func trimmed(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        let name = trimmed("name")
        // What was typed, shown again after a refusal; never the credential.
        let typed = AppDestinationsPage.Typed(
            name: name,
            url: trimmed("url"),
            usesCredential: form["authentication"] == "credential",
            credentialHeader: trimmed("credentialHeader")
        )
        let action = form["action"] ?? ""
        func again(_ message: String, _ status: HTTPResponse.Status) async -> Response {
            await destinationsPage(
                appID,
                record: record,
                browser: browser,
                typed: action == "put" ? typed : .init(),
                error: message,
                status: status
            )
        }
        let attempted = action == "remove" ? "removeDestination" : "putDestination"
        guard await permits(record, attempted, on: "/admin/apps/\(appID)/destinations/\(name)") else {
            return await again("Only an admin changes an app's destinations: ask an admin for the role.", .forbidden)
        }
        if action == "remove",
            let asking = confirmation(
                of: form,
                to: ConsolePaths.destinations(appID),
                title: "Remove the destination \(TextRules.shown(name, limit: 64))?",
                consequence: "Devices of \(appID) can no longer reach this backend through the server, and its "
                    + "sealed credential, if it has one, is gone: an admin adds the destination and its credential "
                    + "again to undo this.",
                button: "Remove the destination",
                back: ConsolePaths.destinations(appID),
                record: record,
                browser: browser,
                current: ConsolePaths.apps
            )
        {
            return asking
        }
        let operation: String
        do {
            switch action {
            case "put":
                let credential = form["credential"] ?? ""
                let change = Components.Schemas.DestinationChange(
                    url: typed.url,
                    authentication: typed.usesCredential ? .credential : .identity,
                    credentialHeader: typed.usesCredential && !typed.credentialHeader.isEmpty
                        ? typed.credentialHeader : nil,
                    credential: typed.usesCredential && !credential.isEmpty ? credential : nil
                )
                _ = try await run(for: record, "putDestination") {
                    try await api.putDestination(.init(path: .init(appID: appID, name: name), body: .json(change)))
                }
                operation = "putDestination"
            case "remove":
                _ = try await run(for: record, "removeDestination") {
                    try await api.removeDestination(.init(path: .init(appID: appID, name: name)))
                }
                operation = "removeDestination"
            default:
                return await again("That is not something the console does.", .badRequest)
            }
        } catch let refused as any ConsoleRefusal {
            return await again(refused.message, refused.status == .notFound ? .notFound : refused.status)
        } catch {
            return unavailable()
        }
        let target = "/admin/apps/\(appID)/destinations/\(name)"
        await services.audit(actor: record.name, via: .console, action: operation, target: target)
        return Self.redirect(to: ConsolePaths.destinations(appID) + "?done=" + action)
    }
}

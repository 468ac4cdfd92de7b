import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's devices: an app's registrations, with their user, app version, last
/// contact and status (a wipe shows whether the device heard of it), locked, unlocked and
/// wiped through the admin API's own operation.
extension OperatorConsole {
    func registerDevices<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.devices) { request, _, record in await devices(request, record: record) }
        action(router, ConsolePaths.devices + "/:registrationID") { request, context, sent in
            await act(request, sent, registrationID: try context.parameters.require("registrationID"))
        }
    }

    /// Registrations on a page.
    static let devicesShown = 50

    /// What an action did, said on the page the browser is sent back to: by the action's
    /// name in the query, never by text from it.
    static let deviceNotices = [
        "lock": "Locked: its sessions ended, and it is refused, signing in on it included, until an operator "
            + "unlocks it.",
        "unlock": "Unlocked: the device is served again.",
        "wipe": "Wiped: the app's data on the device is erased at its next contact.",
    ]

    private func devices(
        _ request: Request,
        record: OperatorRecord,
        appID asked: String? = nil,
        refusal: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async -> Response {
        guard let apps = try? await services.storage.apps() else { return unavailable() }
        let parameters = ConsoleQuery(query: request.uri.query)
        func text(_ name: String) -> String { String((parameters.get(name) ?? "").prefix(128)) }
        let wanted = asked ?? text("app")
        let appID = apps.first { $0.id == wanted }?.id ?? apps.first?.id ?? ""
        // After an action, the page shows the app's first page.
        let user = asked == nil ? text("user").trimmingCharacters(in: .whitespaces) : ""
        let shownStatus = asked == nil ? Components.Schemas.DeviceStatus(rawValue: text("status")) : nil
        let after = asked == nil && !text("after").isEmpty ? text("after") : nil
        var listed: [Components.Schemas.Device] = []
        var refusal =
            refusal
            ?? (asked == nil
                ? ConsoleFilter.problems(
                    ConsoleFilter.app(wanted, in: apps),
                    ConsoleFilter.value(
                        text("status"),
                        "status",
                        allowed: Components.Schemas.DeviceStatus.allCases.map(\.rawValue)
                    )
                ) : nil)
        if !appID.isEmpty {
            let query = Operations.ListDevices.Input.Query(
                user: user,
                status: shownStatus,
                after: after,
                limit: Self.devicesShown + 1
            )
            do {
                let devices = try await run(
                    for: record,
                    "listDevices",
                    { try await api.listDevices(.init(path: .init(appID: appID), query: query)) }
                ).ok.body.json
                listed = devices
            } catch let refused as any ConsoleRefusal {
                refusal = refused.message
            } catch {
                return unavailable()
            }
        }
        var next: String?
        if listed.count > Self.devicesShown {
            listed.removeLast()
            next = ConsoleQuery.path(
                ConsolePaths.devices,
                [
                    ("app", appID), ("user", user), ("status", shownStatus?.rawValue ?? ""),
                    ("after", listed.last?.registrationID ?? ""),
                ]
            )
        }
        let browser = services.formGuard.browser(request.headers)
        var page = DevicesPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.devices),
            apps: apps.map { ($0.id, $0.name) },
            appID: appID,
            user: user,
            statuses: Components.Schemas.DeviceStatus.allCases.map(\.rawValue),
            status: shownStatus?.rawValue ?? "",
            devices: listed.map {
                DevicesPage.Row(
                    registrationID: $0.registrationID,
                    username: $0.userID,
                    deviceName: $0.deviceName,
                    platform: $0.platform,
                    appVersion: $0.appVersion,
                    lastContact: $0.lastContactAt.map(Self.minute) ?? "never",
                    status: $0.status.rawValue,
                    wipeReachedDevice: $0.wipeCarriedOut ?? false
                )
            },
            canAct: record.role >= .operator,
            refusal: refusal,
            notice: refusal == nil
                ? Self.deviceNotices[text("done")].map { notice in
                    // The registration named when it is one shown here.
                    listed.contains { $0.registrationID == text("id") }
                        ? "Registration \(text("id")). " + notice : notice
                } : nil,
            next: next
        )
        // How many there are in all, and the way back to the first page.
        if !appID.isEmpty, refusal == nil,
            let total = try? await services.storage.deviceCount(
                appID: appID,
                userPrefix: user,
                status: shownStatus.flatMap { DeviceStatus(rawValue: $0.rawValue) }
            )
        {
            page.caption += total == 1 ? " (1 in all)" : " (\(total) in all)"
        }
        if after != nil {
            page.firstPage = ConsoleQuery.path(
                ConsolePaths.devices,
                [("app", appID), ("user", user), ("status", shownStatus?.rawValue ?? "")]
            )
        }
        return self.page(page, status: status == .ok && refusal != nil ? .badRequest : status, browser: browser)
    }

    /// Locks, unlocks or wipes a registration, as `PATCH /admin/apps/{appID}/devices/{registrationID}`
    /// does, for an operator or an admin.
    private func act(_ request: Request, _ sent: SentForm, registrationID: String) async -> Response {
        let (form, browser, record) = (sent.fields, sent.browser, sent.record)
        let appID = form["app"] ?? ""
        guard await permits(record, "updateDevice", on: "/admin/apps/\(appID)/devices/\(registrationID)")
        else {
            return await devices(
                request,
                record: record,
                appID: appID,
                refusal: "A viewer reads only: ask an admin for the operator role to change devices.",
                status: .forbidden
            )
        }
        let wanted: Components.Schemas.DeviceStatus
        switch form["action"] {
        case "lock": wanted = .locked
        case "unlock": wanted = .active
        case "wipe": wanted = .wiped
        default:
            return await devices(
                request,
                record: record,
                appID: appID,
                refusal: "That is not something the console does.",
                status: .badRequest
            )
        }
        // The page the action came from, its filters kept.
        var back = URLComponents()
        back.path = ConsolePaths.devices
        back.queryItems = [("app", appID), ("user", form["user"] ?? ""), ("status", form["status"] ?? "")]
            .filter { !$0.1.isEmpty }.map { URLQueryItem(name: $0.0, value: String($0.1.prefix(128))) }
        if wanted == .wiped,
            let asking = confirmation(
                of: form,
                to: ConsolePaths.devices + "/" + registrationID,
                title: "Wipe this device?",
                consequence: "Registration \(registrationID) of app \(appID): at its next contact, the device erases "
                    + "the app's data for this user, changes not yet sent included, and the registration ends. "
                    + "This cannot be undone.",
                button: "Wipe the device",
                back: back.string ?? ConsolePaths.devices,
                record: record,
                browser: browser,
                current: ConsolePaths.devices
            )
        {
            return asking
        }
        do {
            _ = try await run(for: record, "updateDevice") {
                try await api.updateDevice(
                    .init(
                        path: .init(appID: appID, registrationID: registrationID),
                        body: .json(.init(status: wanted))
                    )
                )
            }
        } catch {
            let message = (error as? any ConsoleRefusal)?.message ?? "The server could not do this now."
            return await devices(
                request,
                record: record,
                appID: appID,
                refusal: message,
                status: (error as? any ConsoleRefusal)?.status ?? .serviceUnavailable
            )
        }
        await services.audit(
            actor: record.name,
            via: .console,
            action: "updateDevice",
            target: "/admin/apps/\(appID)/devices/\(registrationID)"
        )
        back.queryItems =
            (back.queryItems ?? []) + [
                URLQueryItem(name: "done", value: form["action"]), URLQueryItem(name: "id", value: registrationID),
            ]
        return Self.redirect(to: back.string ?? ConsolePaths.devices)
    }

    static func minute(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
            .replacingOccurrences(of: "T", with: " ")
    }
}

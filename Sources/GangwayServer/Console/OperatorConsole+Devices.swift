import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's devices: an app's registrations, with their user, app version, last
/// contact and status (a wipe shows whether the device heard of it), locked, unlocked and
/// wiped through the admin API's own operation.
extension OperatorConsole {
    func registerDevices(on router: Router<ServerContext>) {
        router.get(RouterPath(ConsolePaths.devices)) { request, _ in await devices(request) }
        router.post(RouterPath(ConsolePaths.devices + "/:registrationID")) { request, context in
            await act(request, registrationID: context.parameters.get("registrationID") ?? "")
        }
    }

    private func devices(
        _ request: Request,
        appID asked: String? = nil,
        refusal: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async -> Response {
        guard let (_, record) = await signedIn(request) else { return Self.redirect(to: ConsolePaths.signIn) }
        guard let apps = try? await api.storage.apps() else { return unavailable() }
        let wanted = asked ?? request.uri.queryParameters.get("app").map { String($0) }
        let appID = apps.first { $0.id == wanted }?.id ?? apps.first?.id ?? ""
        guard let registrations = appID.isEmpty ? [] : try? await api.storage.devices(appID: appID) else {
            return unavailable()
        }
        let browser = api.formGuard.browser(request.headers)
        let page = DevicesPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.devices),
            apps: apps.map { ($0.id, $0.name) },
            appID: appID,
            devices: registrations.map {
                DevicesPage.Row(
                    registrationID: $0.registrationID,
                    username: $0.username,
                    deviceName: $0.deviceName,
                    platform: $0.platform,
                    appVersion: $0.appVersion,
                    lastContact: $0.lastContactAt.map(Self.minute) ?? "never",
                    status: $0.status.rawValue,
                    wipeReachedDevice: $0.wipeReachedDevice
                )
            },
            canAct: record.role >= .operator,
            refusal: refusal
        )
        return self.page(page, status: status, browser: browser)
    }

    /// Locks, unlocks or wipes a registration, as `PATCH /admin/apps/{appID}/devices/{registrationID}`
    /// does, for an operator or an admin.
    private func act(_ request: Request, registrationID: String) async -> Response {
        guard case .form(let form, _) = await self.form(request) else { return await refused(request) }
        guard let (_, record) = await signedIn(request) else { return Self.redirect(to: ConsolePaths.signIn) }
        let appID = form["app"] ?? ""
        guard record.role >= .operator else {
            return await devices(
                request,
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
                appID: appID,
                refusal: "That is not something the console does.",
                status: .badRequest
            )
        }
        do {
            _ = try await run(for: record) {
                try await api.updateDevice(
                    .init(
                        path: .init(appID: appID, registrationID: registrationID),
                        body: .json(.init(status: wanted))
                    )
                )
            }
        } catch {
            let message = (error as? APIError)?.message ?? "The server could not do this now."
            return await devices(
                request,
                appID: appID,
                refusal: message,
                status: (error as? APIError)?.status ?? .serviceUnavailable
            )
        }
        await api.audit(
            actor: record.name,
            via: .console,
            action: "updateDevice",
            target: "/admin/apps/\(appID)/devices/\(registrationID)"
        )
        var components = URLComponents()
        components.path = ConsolePaths.devices
        components.queryItems = [URLQueryItem(name: "app", value: appID)]
        return Self.redirect(to: components.string ?? ConsolePaths.devices)
    }

    static func minute(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
            .replacingOccurrences(of: "T", with: " ")
    }
}

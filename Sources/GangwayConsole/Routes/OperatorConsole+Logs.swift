import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Hummingbird

/// The console's logs: an app's uploaded entries, filtered by user, level and time by
/// the database, through the admin API's own `GET /admin/apps/{appID}/logs`; control
/// characters are shown escaped.
extension OperatorConsole {
    /// Entries on a page.
    static let logsShown = 100

    func registerLogs<Parent: RequestContext>(on router: RouterGroup<ConsoleContext<Parent>>) {
        page(router, ConsolePaths.logs) { request, _, record in await logs(request, record: record) }
    }

    private func logs(_ request: Request, record: OperatorRecord) async -> Response {
        let browser = services.formGuard.browser(request.headers)
        guard let apps = try? await services.storage.apps() else { return unavailable() }
        let parameters = ConsoleQuery(query: request.uri.query)
        func text(_ name: String) -> String { String((parameters.get(name) ?? "").prefix(128)) }
        let asked = text("app")
        let appID = apps.first { $0.id == asked }?.id ?? apps.first?.id
        let user = text("user").trimmingCharacters(in: .whitespaces)
        let level = Operations.ListLogs.Input.Query.LevelPayload(rawValue: text("level"))
        var error = ConsoleFilter.problems(
            ConsoleFilter.app(asked, in: apps),
            ConsoleFilter.value(
                text("level"),
                "level",
                allowed: Operations.ListLogs.Input.Query.LevelPayload.allCases.map(\.rawValue)
            )
        )
        var since: Date?
        var until: Date?
        let before = Int64(text("before")).flatMap { $0 >= 1 ? $0 : nil }
        for (name, title) in [("since", "From"), ("until", "Before")] where !text(name).isEmpty {
            guard let time = UTCTime.parse(text(name)) else {
                error = "\(title): give a date and time, such as 2026-11-26T08:00."
                continue
            }
            if name == "since" { since = time } else { until = time }
        }
        var entries: [Components.Schemas.StoredLogEntry] = []
        if let appID, error == nil {
            // One more than shown, to know whether an older page follows.
            let query = Operations.ListLogs.Input.Query(
                limit: Self.logsShown + 1,
                user: user.isEmpty ? nil : user,
                level: level,
                since: since,
                until: until,
                before: before
            )
            do {
                entries = try await run(for: record, "listLogs") {
                    try await api.listLogs(.init(path: .init(appID: appID), query: query))
                }.ok.body.json
            } catch let refused as any ConsoleRefusal {
                error = refused.message
            } catch {
                return unavailable()
            }
        }
        func escaped(_ text: String) -> String { TextRules.escapingControls(text, keepingLines: false) }
        let olderFollow = entries.count > Self.logsShown
        entries = Array(entries.prefix(Self.logsShown))
        // Each device by the name the devices page shows it by.
        var names: [String: String] = [:]
        if let appID {
            for (username, deviceID) in Set(entries.map { [$0.userID, $0.deviceID] }).map({ ($0[0], $0[1]) }) {
                if let found = try? await services.storage.device(appID: appID, username: username, deviceID: deviceID)
                {
                    names[username + "\u{0}" + deviceID] = found.deviceName
                }
            }
        }
        func pagePath(before: Int64?) -> String {
            ConsoleQuery.path(
                ConsolePaths.logs,
                [
                    ("app", appID ?? ""), ("user", user), ("level", level?.rawValue ?? ""), ("since", text("since")),
                    ("until", text("until")), ("before", before.map(String.init) ?? ""),
                ]
            )
        }
        let levels = [""] + Operations.ListLogs.Input.Query.LevelPayload.allCases.map(\.rawValue)
        let page = LogsPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.logs),
            apps: apps.map { .init(value: $0.id, title: "\($0.name) (\($0.id))", selected: $0.id == appID) },
            user: user,
            levels: levels.map {
                .init(value: $0, title: $0.isEmpty ? "any" : $0, selected: $0 == (level?.rawValue ?? ""))
            },
            since: text("since"),
            until: text("until"),
            entries: entries.map {
                let name = names[$0.userID + "\u{0}" + $0.deviceID]
                return LogsPage.Entry(
                    received: Self.minute($0.receivedAt),
                    time: Self.minute($0.time),
                    user: escaped($0.userID),
                    device: escaped(name ?? $0.deviceID),
                    deviceID: name == nil ? "" : escaped($0.deviceID),
                    level: escaped($0.level),
                    message: escaped($0.message),
                    source: escaped($0.source ?? "")
                )
            },
            shown: Self.logsShown,
            older: olderFollow ? entries.last?.id.map { pagePath(before: $0) } : nil,
            newest: before == nil ? nil : pagePath(before: nil),
            error: error
        )
        return self.page(page, status: error == nil ? .ok : .badRequest, browser: browser)
    }
}

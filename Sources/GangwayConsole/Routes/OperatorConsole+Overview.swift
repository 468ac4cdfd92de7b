import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import Hummingbird

/// The console's overview: the server's figures, what needs attention, and the last
/// day's, week's or month's activity as charts, read through the admin API's own
/// `GET /admin/attention` and `GET /admin/activity`.
extension OperatorConsole {
    func overview(_ request: Request, record: OperatorRecord) async -> Response {
        let browser = services.formGuard.browser(request.headers)
        guard let apps = try? await services.storage.apps() else { return unavailable() }
        let parameters = request.uri.queryParameters
        let period =
            Operations.GetActivity.Input.Query.PeriodPayload(rawValue: String(parameters.get("period") ?? ""))
            ?? .week
        let asked = String(parameters.get("app") ?? "")
        let problems = ConsoleFilter.problems(
            ConsoleFilter.app(asked, in: apps),
            ConsoleFilter.value(
                parameters.get("period"),
                "period",
                allowed: Operations.GetActivity.Input.Query.PeriodPayload.allCases.map(\.rawValue)
            )
        )
        let appID = apps.first { $0.id == asked }?.id
        // Three reads that wait on nothing of each other's, at once.
        async let counted = try? services.storage.figures()
        async let activityAnswer = try? run(
            for: record,
            "getActivity",
            { try await api.getActivity(.init(query: .init(period: period, app: appID))) }
        )
        async let attentionAnswer = try? run(
            for: record,
            "getAttention",
            { try await api.getAttention(.init(query: .init(app: appID))) }
        )
        guard let figures = await counted, let activity = try? await activityAnswer?.ok.body.json,
            let attention = try? await attentionAnswer?.ok.body.json
        else { return unavailable() }
        let page = OverviewPage(
            signedIn: header(record, browser: browser, current: ConsolePaths.root),
            figures: [
                ("Apps", figures.apps), ("Users", figures.users), ("Registrations active", figures.activeDevices),
                ("Operators", figures.operators),
            ],
            periods: [("Day", .day), ("Week", .week), ("Month", .month)].map { title, value in
                OverviewPage.Period(
                    title: title,
                    path: Self.overviewPath(period: value.rawValue, appID: appID),
                    current: value == period
                )
            },
            period: period.rawValue,
            apps: [ConsoleOption(value: "", title: "Every app", selected: appID == nil)]
                + apps.map { ConsoleOption(value: $0.id, title: "\($0.name) (\($0.id))", selected: $0.id == appID) },
            charts: Self.charts(activity),
            span: Self.span(activity, app: apps.first { $0.id == appID }?.name),
            attention: Self.attention(attention, appID: appID),
            overdue: attention.overdueDevices.map {
                OverviewPage.Overdue(
                    user: $0.userID,
                    device: $0.deviceName,
                    app: $0.appID,
                    lastContact: Self.minute($0.lastContactAt),
                    past: $0.past == .wipe ? "wipe period" : "lock period",
                    path: ConsolePaths.devices + "?app=" + $0.appID
                )
            },
            overdueCaption: attention.overdueDeviceCount == 1
                ? "1 device out of contact past its app's lock or wipe period"
                : "\(attention.overdueDeviceCount) devices out of contact past their app's lock or wipe period, "
                    + "longest first",
            error: problems
        )
        return self.page(page, status: problems == nil ? .ok : .badRequest, browser: browser)
    }

    static func overviewPath(period: String, appID: String?) -> String {
        ConsolePaths.root + "?period=" + period + (appID.map { "&app=" + $0 } ?? "")
    }

    /// What the charts cover, in words.
    static func span(_ activity: Components.Schemas.Activity, app: String?) -> String {
        let what =
            switch activity.period {
            case .day: "The last 24 hours, by hour"
            case .week: "The last 7 days, by day"
            case .month: "The last 30 days, by day"
            }
        return what + ", " + (app ?? "every app") + " (UTC)."
    }

    /// The activity as four charts: devices active, registrations, sign-ins and their
    /// failures, and changes by how they ended.
    static func charts(_ activity: Components.Schemas.Activity) -> [ActivityChart] {
        let buckets = activity.buckets
        let hourly = activity.bucketSeconds == ._3600
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let labels = buckets.map { bucket in
            let parts = calendar.dateComponents([.month, .day, .hour], from: bucket.start)
            func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
            return hourly ? "\(two(parts.hour)):00" : "\(two(parts.month))-\(two(parts.day))"
        }
        let (span, bucket) =
            switch activity.period {
            case .day: ("the last 24 hours", "hour")
            case .week: ("the last 7 days", "day")
            case .month: ("the last 30 days", "day")
            }
        func values(_ value: (Components.Schemas.ActivityBucket) -> Int64) -> [Int] { buckets.map { Int(value($0)) } }
        func chart(
            _ id: String,
            _ title: String,
            _ series: [ActivityChart.Series],
            additive: Bool = true
        )
            -> ActivityChart
        {
            ActivityChart(
                id: id,
                title: title,
                span: span,
                bucket: bucket,
                labels: labels,
                series: series,
                additive: additive
            )
        }
        return [
            chart(
                "active",
                "Devices active",
                [.init(name: "Devices active", one: "device active", values: values(\.activeDevices))],
                additive: false
            ),
            chart(
                "registrations",
                "Registrations",
                [.init(name: "Registrations", one: "registration", values: values(\.registrations))]
            ),
            chart(
                "sign-ins",
                "Sign-ins",
                [
                    .init(name: "Sign-ins", one: "sign-in", values: values(\.signIns)),
                    .init(name: "Failed sign-ins", one: "failed sign-in", values: values(\.signInFailures)),
                ]
            ),
            chart(
                "changes",
                "Changes uploaded",
                [
                    .init(name: "Applied", values: values { $0.changes - $0.conflicts - $0.refusedChanges }),
                    .init(name: "Conflicts", one: "conflict", values: values(\.conflicts)),
                    .init(name: "Refused", values: values(\.refusedChanges)),
                ]
            ),
        ]
    }

    /// What needs attention, each with the page to act on it.
    static func attention(_ attention: Components.Schemas.Attention, appID: String?) -> [OverviewPage.Attention] {
        let app = appID.map { "&app=" + $0 } ?? ""
        let days = Components.Schemas.Attention.days
        var items: [OverviewPage.Attention] = []
        if attention.conflicts > 0 {
            items.append(
                .init(
                    text: "\(count(attention.conflicts, "conflict")) in the last \(days) days",
                    path: ConsolePaths.data + "?outcome=conflict" + app
                )
            )
        }
        if attention.refusedChanges > 0 {
            items.append(
                .init(
                    text: "\(count(attention.refusedChanges, "change")) refused in the last \(days) days",
                    path: ConsolePaths.data + "?outcome=rejected" + app
                )
            )
        }
        for name in attention.blockedUsers {
            items.append(.init(text: "\(name) is blocked", path: ConsolePaths.users + "/" + name))
        }
        let unnamed = attention.blockedUserCount - Int64(attention.blockedUsers.count)
        if unnamed > 0 {
            items.append(.init(text: "\(count(unnamed, "more user")) blocked", path: ConsolePaths.users))
        }
        if attention.lockedDevices > 0 {
            items.append(
                .init(
                    text: "\(count(attention.lockedDevices, "registration")) locked",
                    path: ConsolePaths.devices + (appID.map { "?app=" + $0 } ?? "")
                )
            )
        }
        return items
    }

    private static func count(_ value: Int64, _ noun: String) -> String {
        value == 1 ? "1 \(noun)" : "\(value) \(noun)s"
    }
}

import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayTerminal

extension ActivityReport.Period: ExpressibleByArgument {}

/// `gangway admin activity`.
struct AdminActivity: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "Show what happened over the last day, week or month: devices active, registrations, "
            + "sign-ins and failures, changes and how they ended.",
        discussion: """
            The server counts these as they happen, per hour (UTC): a day shows 24 hours, a \
            week 7 days, a month 30, each ending now. A device counts once per hour or day \
            however often it calls. The console's overview draws the same figures.
            """
    )

    @OptionGroup var server: AdminOptions

    @Option(help: "The span: day (by hour), week or month (by day).")
    var period = ActivityReport.Period.week

    @Option(name: .customLong("app"), help: "Only this app's (default: every app's).")
    var appID: String?

    @Flag(help: "Print the figures as JSON.")
    var json = false

    func run() async throws {
        let (period, appID, json) = (period, appID, json)
        try await server.run { admin in
            let report = try await admin.activity(period, app: appID)
            Console.standardOutput(json ? AdminFormatter.json(report) : AdminFormatter.activity(report))
        }
    }
}

/// `gangway admin attention`.
struct AdminAttention: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attention",
        abstract: "Show what needs an operator: conflicts and refused changes of the last "
            + "\(Components.Schemas.Attention.days) days, blocked users, locked registrations, devices out of "
            + "contact past their app's lock or wipe period."
    )

    @OptionGroup var server: AdminOptions

    @Option(name: .customLong("app"), help: "Only this app's (default: every app's).")
    var appID: String?

    @Flag(help: "Print it as JSON.")
    var json = false

    func run() async throws {
        let (appID, json) = (appID, json)
        try await server.run { admin in
            let report = try await admin.attention(app: appID)
            Console.standardOutput(json ? AdminFormatter.json(report) : AdminFormatter.attention(report))
        }
    }
}

extension AdminFormatter {
    /// The buckets as a table, oldest first, with their totals.
    static func activity(_ report: ActivityReport) -> String {
        let hourly = report.bucketSeconds == 3600
        let formatter = DateFormatter()
        formatter.dateFormat = hourly ? "yyyy-MM-dd HH:mm" : "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        func row(_ label: String, _ values: [Int64]) -> [String] { [label] + values.map(String.init) }
        var rows = report.buckets.map { bucket in
            row(
                formatter.string(from: bucket.start),
                [
                    bucket.activeDevices, bucket.registrations, bucket.signIns, bucket.signInFailures, bucket.changes,
                    bucket.conflicts, bucket.refusedChanges,
                ]
            )
        }
        func total(_ value: (ActivityReport.Bucket) -> Int64) -> Int64 { report.buckets.reduce(0) { $0 + value($1) } }
        rows.append(
            row(
                "total",
                [
                    report.buckets.map(\.activeDevices).max() ?? 0, total(\.registrations), total(\.signIns),
                    total(\.signInFailures), total(\.changes), total(\.conflicts), total(\.refusedChanges),
                ]
            )
        )
        let header = [
            hourly ? "HOUR (UTC)" : "DAY (UTC)", "ACTIVE", "REGISTERED", "SIGN-INS", "FAILED", "CHANGES", "CONFLICTS",
            "REFUSED",
        ]
        return table(header, rows) + "\n(ACTIVE: devices that reached the server; its total is the most in one "
            + (hourly ? "hour" : "day") + ".)"
    }

    /// What needs attention, one line each; `Nothing needs attention.` when nothing does.
    static func attention(_ report: AttentionReport) -> String {
        var lines: [String] = []
        let since = "since " + date(report.since)
        if report.conflicts > 0 { lines.append("Conflicts:        \(report.conflicts) \(since)") }
        if report.refusedChanges > 0 { lines.append("Refused changes:  \(report.refusedChanges) \(since)") }
        if report.blockedUserCount > 0 {
            let more = report.blockedUserCount - Int64(report.blockedUsers.count)
            lines.append(
                "Blocked users:    \(report.blockedUserCount) (\(report.blockedUsers.joined(separator: ", "))"
                    + (more > 0 ? " and \(more) more)" : ")")
            )
        }
        if report.lockedDevices > 0 { lines.append("Locked devices:   \(report.lockedDevices)") }
        if report.overdueDeviceCount > 0 {
            lines.append("Out of contact past their app's lock or wipe period: \(report.overdueDeviceCount)")
            lines.append(
                table(
                    ["  USER", "DEVICE", "APP", "LAST CONTACT", "PAST", "REGISTRATION"],
                    report.overdueDevices.map {
                        ["  " + $0.userID, $0.deviceName, $0.appID, date($0.lastContactAt), $0.past, $0.registrationID]
                    }
                )
            )
        }
        return lines.isEmpty ? "Nothing needs attention." : lines.joined(separator: "\n")
    }
}

import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServices
import GangwayTerminal
import Logging

/// `gangway admin logs`.
struct AdminLogs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract:
            "Show the logs devices uploaded, newest first; or set whether, from which level and how often they upload.",
        discussion: """
            A device uploads its own logs only for a user who allows usage reports, at most \
            once per interval, at its server contacts (a launch, going to the background); \
            withdrawing the consent stops it at once. Without --upload, --level or \
            --interval, the command lists what arrived, filtered by --user, --min-level \
            (that level and above), --since and --until (UTC).
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(help: "Whether devices upload their logs (true or false).")
    var upload: Bool?

    @Option(help: "The lowest level uploaded: trace, debug, info, notice, warning, error or critical.")
    var level: String?

    @Option(parsing: .unconditional, help: "The least seconds between two uploads of a device (60 to 86400).")
    var interval: Int?

    @OptionGroup var limit: ListLimitOption

    @Option(help: "List only this user's entries.")
    var user: String?

    @Option(help: "List only entries of this level and above (trace … critical).")
    var minLevel: String?

    @Option(help: "List only entries logged at or after this time: \(UTCTime.example).")
    var since: String?

    @Option(help: "List only entries logged before this time (UTC).")
    var until: String?

    @Flag(help: "List the entries as JSON.")
    var json = false

    func validate() throws {
        if let level, Logger.Level(rawValue: level) == nil {
            throw ValidationError("--level is one of trace, debug, info, notice, warning, error, critical.")
        }
        if let interval, !LogUploadSchedule.intervalSeconds.contains(interval) {
            throw ValidationError("--interval is 60 to 86400 seconds.")
        }
        if let minLevel, Logger.Level(rawValue: minLevel) == nil {
            throw ValidationError("--min-level is one of trace, debug, info, notice, warning, error, critical.")
        }
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, UTCTime.parse(value) == nil { throw ValidationError("\(name) is \(UTCTime.example).") }
        }
        if let since = since.flatMap(UTCTime.parse), let until = until.flatMap(UTCTime.parse), since >= until {
            throw ValidationError("--since must be before --until: no entry is logged in between.")
        }
        if let user, !APILimits.username.contains(user.unicodeScalars.count) {
            throw ValidationError(
                "--user is \(APILimits.username.lowerBound) to \(APILimits.username.upperBound) characters."
            )
        }
        let filters = user != nil || minLevel != nil || since != nil || until != nil
        if filters, upload != nil || level != nil || interval != nil {
            throw ValidationError(
                "--user, --min-level, --since and --until list entries; give them without --upload, --level or --interval."
            )
        }
    }

    func run() async throws {
        let (upload, level, interval, limit, json) = (
            upload, level.flatMap(Logger.Level.init(rawValue:)), interval, limit.value ?? APIDefaults.listLimit, json
        )
        let (user, minLevel, since, until) = (
            user, minLevel, since.flatMap(UTCTime.parse), until.flatMap(UTCTime.parse)
        )
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            if upload != nil || level != nil || interval != nil {
                let app = try await admin.updateApp(
                    id,
                    AppChange(logUpload: upload, logLevel: level, logUploadIntervalSeconds: interval)
                )
                Console.standardOutput(AdminFormatter.logSettings(app))
                return
            }
            let logs = try await admin.logs(
                app: id,
                limit: limit,
                user: user,
                level: minLevel,
                since: since,
                until: until
            )
            Console.standardOutput(json ? AdminFormatter.json(logs) : AdminFormatter.logs(logs))
        }
    }
}

extension AdminFormatter {
    /// Whether, from which level and how often devices upload their logs.
    static func logSettings(_ app: ManagedApp) -> String {
        let settings = app.settings
        guard settings.logUploadEnabled else { return "Logs:            devices do not upload them" }
        return "Logs:            uploaded where users allow it, \(settings.logLevel) and above, "
            + "at most every \(settings.logUploadInterval.components.seconds) s"
    }

    /// The uploaded entries as a table, newest first.
    static func logs(_ logs: [UploadedLog]) -> String {
        guard !logs.isEmpty else { return "No logs." }
        return table(
            ["LOGGED", "LEVEL", "USER", "DEVICE", "MESSAGE"],
            logs.map { [date($0.time), $0.level, $0.userID, $0.deviceID, $0.message] }
        )
    }
}

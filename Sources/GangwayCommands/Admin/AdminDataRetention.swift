import ArgumentParser
import GangwayAdmin
import GangwayProtocol
import GangwayServices

/// `gangway admin data retention`: how long the server remembers removed entities.
struct AdminDataRetention: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention",
        abstract: "Show or set how many days the server remembers removed entities.",
        discussion: """
            A device syncs what changed since its last sync, removals included, for as \
            long as the server remembers them (30 days unless set). A device that stays \
            offline longer is told so at its next sync and reads its sets again from the \
            start; its pending changes are kept. Longer suits devices that stay away for \
            long; shorter keeps the server's change log small. Applies to every set of \
            the app.
            Example: gangway admin data retention --days 90
            """
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(
        help: """
            Remember removals this many days, \(APILimits.removalsKeptDays.lowerBound) to \
            \(APILimits.removalsKeptDays.upperBound).
            """
    )
    var days: Int?

    func validate() throws {
        if let days, !APILimits.removalsKeptDays.contains(days) {
            throw ValidationError(
                "--days must be between \(APILimits.removalsKeptDays.lowerBound) and \(APILimits.removalsKeptDays.upperBound)."
            )
        }
    }

    func run() async throws {
        try await app.show(
            on: server,
            changing: days.map { AppChange(removalsKeptDays: $0) },
            as: AdminFormatter.retention
        )
    }
}

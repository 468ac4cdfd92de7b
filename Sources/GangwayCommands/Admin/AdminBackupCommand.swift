import ArgumentParser
import Foundation
import GangwayServer
import GangwayTerminal

/// `gangway admin backup FILE`: a consistent copy of a SQLite server's database, taken
/// while it serves, on this machine.
struct AdminBackup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the local SQLite server's database to a new file, while it serves.",
        discussion: """
            The backup is one consistent snapshot (SQLite's backup API, in one read \
            transaction): every write acknowledged before it began is in it. It is copied in \
            small steps, each followed by a rest as long, so the server's requests wait little \
            (about 15 s for 1 GB). It is written 0600, never over an existing file. It holds \
            the signing keys and recovery secrets sealed with the server key \
            (DIR/server-key, or the server's --key-file), which is not in it: a backup cannot \
            be read without that file, by design. Keep the key, apart from the backups. \
            Restore with 'gangway serve --restore FILE --data-dir NEW-DIR'. A server on \
            PostgreSQL is backed up with pg_dump (see the README).

            Exit codes: 0 backed up, 1 nothing to back up or the copy failed (the message \
            says why; nothing is left at FILE), 64 invalid command line.
            """
    )

    @Option(
        name: .customLong("data-dir"),
        help: "The data directory of the server to back up: a 'gangway serve --data-dir', or the device app's."
    )
    var dataDirectory = GangwayDirectory.path()

    @Argument(help: "The backup file to write; it must not exist.")
    var file: String

    func validate() throws {
        try DirectoryOption.validate(dataDirectory, option: "--data-dir")
        guard !file.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, !file.hasSuffix("/") else {
            throw ValidationError("FILE must name a file.")
        }
    }

    func run() async throws {
        try await CommandReport.run("gangway admin backup") {
            let directory = LocalServer(dataDirectory: URL(fileURLWithPath: dataDirectory), bcryptCost: 4).directory
            let target = URL(fileURLWithPath: file)
            let made = try await ServerBackup.backUp(dataDirectory: directory, to: target)
            let megabytes = String(format: "%.1f", Double(made.bytes) / 1_000_000)
            Console.standardOutput(
                "Backed up \(directory.path) to \(target.path) (\(megabytes) MB, schema at migration "
                    + "\(made.migrations)). It cannot be read without the server key "
                    + "(\(directory.appendingPathComponent(ServerConfiguration.serverKeyFileName).path), or the "
                    + "server's --key-file): keep that file, apart from the backup."
            )
        }
    }
}

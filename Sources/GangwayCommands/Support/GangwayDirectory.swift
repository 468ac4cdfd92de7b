import Foundation

/// Where the commands keep their data unless told otherwise: `~/.gangway`.
enum GangwayDirectory {
    /// `$HOME/.gangway`, falling back to the account's home directory when `HOME` is
    /// unset. `HOME` wins, as for any command-line tool: Foundation's own home directory
    /// on Linux reads the password database and ignores it.
    static func url(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".gangway")
    }

    /// `path` inside ``url(environment:)``.
    static func path(_ component: String? = nil) -> String {
        component.map { url().appendingPathComponent($0).path } ?? url().path
    }
}

import Foundation
import GangwayProtocol
import GangwayServer
import GangwayTerminal
import Logging

extension ServeCommand {
    /// What `serve --check-config` prints: each setting, the value serve runs with (a
    /// URL's password hidden; for one not set, what serve does without it) and where it
    /// came from (``ServeSettings/Origin``).
    func checkedConfiguration(origins: [String: ServeSettings.Origin]) -> String {
        var origins = origins
        // A GANGWAY_LOG_LEVEL that names no level is left out (and said so).
        let environmentLevel = LogLevelVariable.level
        if case .environment = origins["log-level"], environmentLevel == nil { origins["log-level"] = nil }
        // A URL read from postgres-file comes from where that setting came from.
        if postgresURL == nil, postgresFile != nil { origins["postgres"] = origins["postgres-file"] }
        let dataDirectory = URL(fileURLWithPath: dataDirectory)
        let sqlite = dataDirectory.appendingPathComponent(ServerConfiguration.sqliteFileName).path
        let settings: [(String, String)] = [
            ("host", host), ("port", port == 0 ? "0 (any free port)" : String(port)),
            ("console-port", consolePort.map(String.init) ?? "none: the console is on the devices' port"),
            ("console-host", consolePort == nil ? "unused without console-port" : consoleHost ?? host),
            ("metrics-port", metricsPort.map(String.init) ?? "none: no metrics"),
            (
                "metrics-host",
                metricsPort == nil ? "unused without metrics-port" : metricsHost ?? Self.metricsDefaultHost
            ),
            ("data-dir", dataDirectory.path),
            (
                "postgres",
                postgresURL.map(WebURL.hidingPassword)
                    ?? (postgresFile == nil ? "none: SQLite in \(sqlite)" : "from postgres-file")
            ),
            ("postgres-file", postgresFile ?? "none"),
            ("wait-for-database", postgresURL == nil && postgresFile == nil ? "unused with SQLite" : "\(databaseWait)"),
            ("drain-seconds", String(drainSeconds)), ("grace-seconds", String(graceSeconds)),
            ("cache-seconds", String(cacheSeconds)),
            (
                "public-url",
                publicURL
                    ?? (port == 0
                        ? "http://\(WebURL.authority(host: host)):PORT, the port taken at start"
                        : "http://" + WebURL.authority(host: host, port: port))
            ),
            ("bcrypt-cost", String(bcryptCost)),
            (
                "key-file",
                keyFile ?? dataDirectory.appendingPathComponent(ServerConfiguration.serverKeyFileName).path
            ),
            ("trusted-proxy", trustedProxies.isEmpty ? "none" : trustedProxies.joined(separator: ", ")),
            ("public-destinations-only", String(publicDestinationsOnly)),
            ("rotate-keys-days", rotateKeysDays.map(String.init) ?? "none: rotated by gangway admin keys rotate"),
            ("key-publish-seconds", String(keyPublishSeconds)),
            ("otlp-endpoint", otlpEndpoint.map(WebURL.hidingPassword) ?? "none: no spans"),
            (
                "trace-sample-ratio",
                otlpEndpoint == nil ? "unused without otlp-endpoint" : Self.shown(ratio: traceSampleRatio ?? 1)
            ),
            ("log-level", logLevel ?? environmentLevel?.rawValue ?? "info"),
        ]
        let width = settings.map(\.0.count).max() ?? 0
        let lines = settings.map { name, value in
            let origin = origins[name] ?? .unset
            return "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value + "  (\(origin))"
        }
        return
            (["gangway serve would run with:"] + lines + [
                "Checked: every setting is in range. Nothing was started or written."
            ]).joined(separator: "\n")
    }

    /// A ratio as a person writes it: `0`, `0.25`, `1`.
    private static func shown(ratio: Double) -> String {
        if ratio == ratio.rounded(), let whole = Int(exactly: ratio) { return String(whole) }
        return String(ratio)
    }
}

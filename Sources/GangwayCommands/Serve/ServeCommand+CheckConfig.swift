import Foundation
import GangwayProtocol
import GangwayServer

extension ServeCommand {
    /// What `serve --check-config` prints: each setting, its value as serve reads it (a
    /// URL's password hidden) and where it came from (``ServeSettings/Origin``).
    func checkedConfiguration(origins: [String: ServeSettings.Origin]) -> String {
        let settings: [(String, String?)] = [
            ("host", host), ("port", String(port)), ("console-port", consolePort.map(String.init)),
            ("console-host", consoleHost), ("metrics-port", metricsPort.map(String.init)),
            ("metrics-host", metricsHost), ("data-dir", dataDirectory),
            ("postgres", postgresURL.map(WebURL.hidingPassword)),
            ("postgres-file", postgresFile), ("wait-for-database", String(databaseWait)),
            ("drain-seconds", String(drainSeconds)), ("grace-seconds", String(graceSeconds)),
            ("cache-seconds", String(cacheSeconds)), ("public-url", publicURL), ("bcrypt-cost", String(bcryptCost)),
            ("key-file", keyFile),
            ("trusted-proxy", trustedProxies.isEmpty ? nil : trustedProxies.joined(separator: ", ")),
            ("public-destinations-only", String(publicDestinationsOnly)),
            ("rotate-keys-days", rotateKeysDays.map(String.init)), ("key-publish-seconds", String(keyPublishSeconds)),
            ("otlp-endpoint", otlpEndpoint), ("trace-sample-ratio", traceSampleRatio.map { String($0) }),
            ("log-level", logLevel),
        ]
        let width = settings.map(\.0.count).max() ?? 0
        let lines = settings.map { name, value in
            let shown = value ?? "(none)"
            let origin = origins[name] ?? .unset
            return "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + shown + "  (\(origin))"
        }
        return
            (["gangway serve would run with:"] + lines + [
                "Checked: every setting is in range. Nothing was started or written."
            ]).joined(separator: "\n")
    }
}

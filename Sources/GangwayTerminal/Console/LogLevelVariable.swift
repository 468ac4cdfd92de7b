import Foundation
import GangwayProtocol
import Logging
import Synchronization

/// `GANGWAY_LOG_LEVEL`: how much the app, `gangway store` and `gangway serve` log to
/// standard error, when the command line does not say (`serve --log-level`). A value
/// that is no level (`trace`, `debug`, `info`, `notice`, `warning`, `error`,
/// `critical`) is no setting, and is said once on standard error; an empty one is no
/// setting, silently. Logs never hold a secret, at any level.
public enum LogLevelVariable {
    /// The level the variable names, if it names one.
    public static var level: Logger.Level? {
        guard let text = ProcessInfo.processInfo.environment["GANGWAY_LOG_LEVEL"], !text.isEmpty else { return nil }
        guard let level = Logger.Level(rawValue: text) else {
            let first = warned.withLock { warned in
                defer { warned = true }
                return !warned
            }
            if first {
                let shown = TextRules.shown(text, limit: 40)
                Console.standardError(
                    "Warning: GANGWAY_LOG_LEVEL '\(shown)' is not a level (\(names)); it is left out."
                )
            }
            return nil
        }
        return level
    }

    /// The levels, least to most severe.
    public static let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")

    private static let warned = Mutex(false)
}

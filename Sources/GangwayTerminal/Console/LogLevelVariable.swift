import Foundation
import Logging

/// `GANGWAY_LOG_LEVEL`: how much the app, `gangway store` and `gangway serve` log to
/// standard error, when the command line does not say (`serve --log-level`). A value
/// that is no level (`trace`, `debug`, `info`, `notice`, `warning`, `error`,
/// `critical`) is no setting; logs never hold a secret, at any level.
public enum LogLevelVariable {
    /// The level the variable names, if it names one.
    public static var level: Logger.Level? {
        ProcessInfo.processInfo.environment["GANGWAY_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
    }
}

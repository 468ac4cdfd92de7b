import Foundation
import Logging

/// One log line to upload.
public struct LogRecord: Sendable, Hashable {
    /// When it was logged.
    public var time: Date
    /// How severe it is.
    public var level: Logger.Level
    /// What was logged; never a secret, as everywhere in Gangway.
    public var message: String
    /// Where it came from, such as the logger's label.
    public var source: String?

    public init(time: Date, level: Logger.Level, message: String, source: String? = nil) {
        self.time = time
        self.level = level
        self.message = message
        self.source = source
    }
}

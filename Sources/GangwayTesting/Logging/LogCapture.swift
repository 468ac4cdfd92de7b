import InMemoryLogging
import Logging

/// Collects every log line (level, message and metadata) so tests can check what was
/// logged, and that no secret was. swift-log's in-memory handler keeps the entries.
public final class LogCapture: Sendable {
    private let handler: InMemoryLogHandler

    public init() {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        self.handler = handler
    }

    /// A logger that writes into the capture, at every level.
    public var logger: Logger {
        Logger(label: "test") { [handler] _ in handler }
    }

    /// Every line so far, one per log call.
    public var text: String {
        handler.entries.map { "\($0.level) \($0.message) \($0.metadata)" }.joined(separator: "\n")
    }
}

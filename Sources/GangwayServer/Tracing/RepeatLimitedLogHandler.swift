import Logging
import Synchronization

/// A log handler that passes each message on at most once per ``interval``, for the
/// export's own diagnostics: ``SpanExporter`` warns at each batch while spans are dropped
/// or a collector is down, many times a second on a busy server. A message passed on after
/// others like it were held back says how many (`repeated`).
struct RepeatLimitedLogHandler: LogHandler {
    /// Where the messages passed on go.
    let base: Logger
    let interval: Duration
    let now: @Sendable () -> ContinuousClock.Instant
    /// Per message: when it was last passed on, and how many like it were held back
    /// since; shared by the copies a logger makes of its handler.
    private let seen = Seen()

    private final class Seen: Sendable {
        let table = Mutex<[String: (passed: ContinuousClock.Instant, held: Int)]>([:])
    }

    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    init(
        base: Logger,
        interval: Duration = .seconds(10),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.base = base
        self.interval = interval
        self.now = now
        self.logLevel = base.logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let key = event.message.description
        let instant = now()
        let held: Int? = seen.table.withLock { seen in
            if let last = seen[key], instant - last.passed < interval {
                seen[key] = (last.passed, last.held + 1)
                return nil
            }
            let held = seen[key]?.held ?? 0
            // Forgets messages not seen for a while: the table stays as small as their kinds.
            if seen.count > 64 { seen = seen.filter { instant - $0.value.passed < interval } }
            seen[key] = (instant, 0)
            return held
        }
        guard let held else { return }
        var merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if held > 0 { merged["repeated"] = "\(held)" }
        base.log(
            level: event.level,
            event.message,
            metadata: merged,
            source: event.source,
            file: event.file,
            function: event.function,
            line: event.line
        )
    }
}

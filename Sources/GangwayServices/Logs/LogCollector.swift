import Foundation
import GangwaySystem
import Logging
import Synchronization

/// The app's own logs, kept on the device for upload: a swift-log handler feeds it, and
/// ``LogUploadStep`` sends what a user's consent allows.
///
/// It is bounded: past ``capacity`` records the oldest goes. Each record is tagged with
/// the user whose session was current when it was logged, so one person's consent never
/// sends another's records; records logged with no user current are never sent. What it
/// keeps is what the app logs, and Gangway logs no secret (no passcode, key, token or
/// stored value) anywhere. It lives in memory only: a record not sent by the time the
/// app ends is lost, which is the right failure for diagnostics nobody was promised.
public final class LogCollector: Sendable {
    /// One kept record, numbered in the order it was logged.
    public struct Entry: Sendable, Hashable {
        public let number: UInt64
        public let user: UUID?
        public let record: LogRecord
    }

    private struct State {
        var entries: [Entry] = []
        var next: UInt64 = 0
        var user: UUID?
        var level: Logger.Level = .info
    }

    /// The most records kept.
    public let capacity: Int
    private let state = Mutex(State())
    private let now: @Sendable () -> Date

    public init(capacity: Int = 2000, now: @escaping @Sendable () -> Date = WallClock.now) {
        self.capacity = max(1, capacity)
        self.now = now
    }

    /// The user whose session is current: records logged from now on are theirs.
    public var currentUser: UUID? {
        get { state.withLock { $0.user } }
        set { state.withLock { $0.user = newValue } }
    }

    /// The lowest level kept: the server's log level, set at each settings exchange.
    public var minimumLevel: Logger.Level {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// Keeps a record when it is at or above ``minimumLevel``.
    public func append(level: Logger.Level, message: String, source: String?) {
        let time = now()
        state.withLock { state in
            guard level >= state.level else { return }
            state.entries.append(
                Entry(
                    number: state.next,
                    user: state.user,
                    record: LogRecord(time: time, level: level, message: message, source: source)
                )
            )
            state.next += 1
            if state.entries.count > capacity { state.entries.removeFirst(state.entries.count - capacity) }
        }
    }

    /// The records kept for `user`, oldest first.
    public func entries(for user: UUID) -> [Entry] {
        state.withLock { $0.entries.filter { $0.user == user } }
    }

    /// Forgets the records numbered `numbers` (sent).
    public func remove(_ numbers: Set<UInt64>) {
        state.withLock { $0.entries.removeAll { numbers.contains($0.number) } }
    }

    /// Forgets every record of `user` (their consent was withdrawn, or they were removed).
    public func discard(user: UUID) {
        state.withLock { $0.entries.removeAll { $0.user == user } }
    }

    /// A swift-log handler that feeds the collector; multiplex it with the app's own.
    public func handler(label: String) -> some LogHandler {
        CollectingLogHandler(collector: self, label: label)
    }
}

/// The swift-log handler of a ``LogCollector``: the message with its metadata, sorted.
struct CollectingLogHandler: LogHandler {
    let collector: LogCollector
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // The handler takes every level (the server's can change at any time); what the
        // collector would not keep is not formatted.
        guard event.level >= collector.minimumLevel else { return }
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        var message = event.message.description
        if !merged.isEmpty {
            message += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        collector.append(level: event.level, message: message, source: label)
    }
}

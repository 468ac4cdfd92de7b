import Synchronization

/// A monotonic clock that moves only when told, for lock timeouts in tests.
///
/// Pass ``now`` where a session manager asks for its clock.
public final class ManualMonotonicClock: Sendable {
    private let current: Mutex<Duration>

    /// A clock reading `start`.
    public init(_ start: Duration = .seconds(1_000)) {
        current = Mutex(start)
    }

    /// The clock's reading.
    public var reading: Duration { current.withLock { $0 } }

    /// A closure reading the clock.
    public var now: @Sendable () -> Duration { { [self] in self.reading } }

    /// Moves the clock forward; a monotonic clock never goes back, so a negative
    /// duration is ignored.
    public func advance(by duration: Duration) {
        guard duration > .zero else { return }
        current.withLock { $0 += duration }
    }
}

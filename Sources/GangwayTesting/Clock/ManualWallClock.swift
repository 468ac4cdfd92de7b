import Foundation
import Synchronization

/// A wall clock that moves only when told, for lockout delays and expiry in tests.
///
/// Pass ``now`` where an environment asks for the current date.
public final class ManualWallClock: Sendable {
    private let current: Mutex<Date>

    /// A clock showing `start`.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    /// The time the clock shows.
    public var date: Date { current.withLock { $0 } }

    /// A closure reading the clock.
    public var now: @Sendable () -> Date { { [self] in self.date } }

    /// Moves the clock forward.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        current.withLock { $0 = $0.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18) }
    }
}

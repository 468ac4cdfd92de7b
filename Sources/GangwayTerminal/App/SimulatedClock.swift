import Synchronization

/// The app's monotonic clock: real time plus the time `wait` pretended to pass, so the
/// lock timeout can be shown without waiting for it.
final class SimulatedClock: Sendable {
    private let origin = ContinuousClock.now
    private let skipped = Mutex(Duration.zero)

    /// Time since the app started, including skipped time.
    func now() -> Duration { (ContinuousClock.now - origin) + skipped.withLock { $0 } }

    /// Pretends `duration` passed.
    func skip(_ duration: Duration) { skipped.withLock { $0 += duration } }
}

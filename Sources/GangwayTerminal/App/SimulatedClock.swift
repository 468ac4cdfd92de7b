import GangwayFlows
import Synchronization

/// The app's monotonic clock: real time plus the time `wait` pretended to pass, so the
/// lock timeout can be shown without waiting for it.
final class SimulatedClock: Clock, Sendable {
    typealias Instant = ElapsedInstant

    private let base = ContinuousClock()
    private let origin = ContinuousClock.now
    private let skipped = Mutex(Duration.zero)

    /// Time since the app started, including skipped time.
    var now: ElapsedInstant {
        ElapsedInstant(sinceOrigin: (ContinuousClock.now - origin) + skipped.withLock { $0 })
    }

    var minimumResolution: Duration { base.minimumResolution }

    /// Sleeps for what is left until `deadline` in real time.
    func sleep(until deadline: ElapsedInstant, tolerance: Duration? = nil) async throws {
        try await base.sleep(for: now.duration(to: deadline), tolerance: tolerance)
    }

    /// Pretends `duration` passed.
    func skip(_ duration: Duration) { skipped.withLock { $0 += duration } }
}

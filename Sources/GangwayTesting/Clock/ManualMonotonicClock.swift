import Foundation
import GangwayFlows
import Synchronization

/// A monotonic `Clock` that moves only when told, for lock timeouts in tests.
///
/// Pass it where a session manager asks for its clock; ``advance(by:)`` moves it, and
/// wakes whoever sleeps until a time it reaches.
public final class ManualMonotonicClock: Clock, Sendable {
    public typealias Instant = ElapsedInstant

    private struct State {
        var reading: Duration
        var sleepers: [UUID: (deadline: Duration, continuation: CheckedContinuation<Void, any Error>)] = [:]
    }

    private let state: Mutex<State>

    /// A clock reading `start`.
    public init(_ start: Duration = .seconds(1_000)) {
        state = Mutex(State(reading: start))
    }

    /// The clock's reading.
    public var reading: Duration { state.withLock { $0.reading } }

    public var now: ElapsedInstant { ElapsedInstant(sinceOrigin: reading) }

    public var minimumResolution: Duration { .zero }

    /// Returns once the clock was advanced to `deadline`; throws when the task is
    /// cancelled first.
    public func sleep(until deadline: ElapsedInstant, tolerance: Duration? = nil) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state in
                    if state.reading >= deadline.sinceOrigin || Task.isCancelled { return true }
                    state.sleepers[id] = (deadline.sinceOrigin, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves the clock forward; a monotonic clock never goes back, so a negative
    /// duration is ignored.
    public func advance(by duration: Duration) {
        guard duration > .zero else { return }
        let woken = state.withLock { state in
            state.reading += duration
            let due = state.sleepers.filter { $0.value.deadline <= state.reading }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }
}

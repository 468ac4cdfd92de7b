import Foundation
import GangwayServerStorage
import Synchronization

/// Whether the server should be sent requests (`GET /health/ready`): not while it drains
/// (it was told to stop), nor while its database does not answer within
/// ``storageWait``. The database is asked at most once per ``recheck``, however often a
/// probe comes, and probes that come while it is asked share its answer: a flood of
/// probes costs the database one question a second.
final class ServerReadiness: Sendable {
    /// Why the server is not ready.
    enum Reason: Sendable, Equatable {
        /// It was told to stop, and finishes what it serves.
        case draining
        /// Its database did not answer in time, or answered with an error.
        case storage
    }

    /// How long the database has to answer.
    static let storageWait: Duration = .seconds(2)
    /// How long a database answer stands for the probes that follow.
    static let recheck: Duration = .seconds(1)

    private struct State {
        var draining = false
        var checked: (at: ContinuousClock.Instant, answered: Bool)?
        /// The question being asked now, which every probe until its answer waits for.
        var asking: Task<Bool, Never>?
        /// How many questions were asked, for the tests.
        var asked = 0
    }

    private let state = Mutex(State())
    private let storage: ServerStorage

    init(storage: ServerStorage) {
        self.storage = storage
    }

    /// From now on the server is not ready: it is stopping.
    func beginDraining() {
        state.withLock { $0.draining = true }
    }

    var isDraining: Bool { state.withLock(\.draining) }

    /// How many times the database was asked.
    var questionsAsked: Int { state.withLock(\.asked) }

    /// Why the server is not ready now, or `nil` when it is.
    func reason() async -> Reason? {
        let now = ContinuousClock.now
        let (draining, recent) = state.withLock { state in
            (state.draining, state.checked.flatMap { now - $0.at < Self.recheck ? $0.answered : nil })
        }
        if draining { return .draining }
        let answered: Bool
        if let recent {
            answered = recent
        } else {
            let storage = storage
            let asking = state.withLock { state in
                if let asking = state.asking { return asking }
                state.asked += 1
                let asking = Task { await Self.answers(storage, within: Self.storageWait) }
                state.asking = asking
                return asking
            }
            answered = await asking.value
            state.withLock { state in
                if state.asking == asking {
                    state.asking = nil
                    state.checked = (ContinuousClock.now, answered)
                }
            }
        }
        return answered ? nil : .storage
    }

    /// Whether `storage` answers within `wait`. A question the database never answers
    /// (a pool that hangs) is left to end on its own: the probe answers at the wait
    /// whatever it does, and never waits for it.
    static func answers(_ storage: ServerStorage, within wait: Duration) async -> Bool {
        let outcome = Outcome()
        let ping = Task {
            let answered = (try? await storage.ping()) != nil
            outcome.settle(answered)
        }
        let timer = Task {
            try? await Task.sleep(for: wait)
            outcome.settle(false)
        }
        let answered = await outcome.value
        ping.cancel()
        timer.cancel()
        return answered
    }

    /// The first of two answers: the database's, or the wait's end.
    private final class Outcome: Sendable {
        private let state = Mutex<(value: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

        func settle(_ value: Bool) {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard state.value == nil else { return nil }
                state.value = value
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: value)
        }

        var value: Bool {
            get async {
                await withCheckedContinuation { continuation in
                    let settled = state.withLock { state -> Bool? in
                        if let value = state.value { return value }
                        state.waiter = continuation
                        return nil
                    }
                    if let settled { continuation.resume(returning: settled) }
                }
            }
        }
    }
}

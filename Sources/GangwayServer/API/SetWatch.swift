import Foundation
import GangwayServerStorage
import Logging
import Synchronization

/// The devices waiting for an entity set to change (a sync's `wait`), and what wakes them:
/// a watcher that, while anyone waits, reads the watched sets' last positions every
/// ``interval`` in one statement per app, and wakes each device whose copy they pass.
///
/// It reads the database, so a write through any server process sharing it wakes the
/// devices waiting on every other, within an interval, and a dropped connection costs one
/// missed read, never a lost wake; a write through this process (``written()``), or one
/// through another whose notice this process heard (PostgreSQL), has it read at once. One
/// watch serves every instance of the server's API. What a waiting device costs is a
/// suspended request and an entry here: no query of its own, no thread.
final class SetWatch: Sendable {
    struct Key: Hashable, Sendable {
        var appID: String
        var entitySet: String
    }

    /// One page of a sync, as ``reads`` shares it among the devices that ask for it at
    /// once (those a write woke, current at one cursor).
    struct Read: Hashable, Sendable {
        var appID: String
        var entitySet: String
        var after: Int64
        var through: Int64?
        var includingRemovals: Bool
        var subset: Set<String>?
        var limit: Int
    }

    /// The sync pages being read now, for the devices that ask for the same one.
    let reads = SharedReads<Read, EntityLogPage>()

    private struct Waiter {
        var id: UInt64
        /// The position the device's copy is current through: a later one wakes it.
        var past: Int64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var nextID: UInt64 = 0
        var waiters: [Key: [Waiter]] = [:]
        var count = 0
        var watching = false
        /// The watcher between two reads, when it rests.
        var rest: CheckedContinuation<Void, Never>?
        /// A write through this process since the watcher's last read began.
        var written = false
        /// The server stops: no device waits any more (``endWaits()``).
        var ended = false
    }

    /// How often the watcher reads the watched sets while anyone waits.
    static let interval: Duration = .milliseconds(250)

    private let state = Mutex(State())
    private let storage: ServerStorage
    /// At most this many devices wait at once; past it, a sync answers at once.
    private let capacity: Int
    private let logger: Logger
    /// Told how many wait each time that changes (the operator's gauge).
    private let counted: @Sendable (Int) -> Void

    init(storage: ServerStorage, capacity: Int, logger: Logger, counted: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.storage = storage
        self.capacity = capacity
        self.logger = logger
        self.counted = counted
    }

    /// Waits until `key`'s set passes `past`, or `deadline` passes, or the task is
    /// cancelled, or the server stops (``endWaits()``). Returns whether the set changed;
    /// `false` at once when the deadline has passed, the process has as many waiting as it
    /// takes, or it is stopping.
    func wait(for key: Key, past: Int64, until deadline: ContinuousClock.Instant) async -> Bool {
        guard ContinuousClock.now < deadline else { return false }
        let id = state.withLock { state -> UInt64? in
            guard state.count < capacity, !state.ended else { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return false }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let added = state.withLock { state -> (startWatcher: Bool, count: Int)? in
                    guard !state.ended else { return nil }
                    state.waiters[key, default: []].append(Waiter(id: id, past: past, continuation: continuation))
                    state.count += 1
                    defer { state.watching = true }
                    return (!state.watching, state.count)
                }
                guard let (startWatcher, count) = added else { return continuation.resume(returning: false) }
                counted(count)
                if startWatcher { Task { await self.watch() } }
                Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    self.resume(key, id, false)
                }
            }
        } onCancel: {
            resume(key, id, false)
        }
    }

    /// Ends every wait now, each answered as if its deadline had passed, and each asked
    /// for from now on at once: the server is stopping, and a device waiting is answered
    /// (its empty page, to ask again elsewhere) before its connection closes, rather than
    /// holding the stop until its wait ends.
    func endWaits() {
        let waiters = state.withLock { state -> [Waiter] in
            state.ended = true
            defer {
                state.waiters = [:]
                state.count = 0
            }
            return state.waiters.values.flatMap { $0 }
        }
        guard !waiters.isEmpty else { return }
        counted(0)
        for waiter in waiters { waiter.continuation.resume(returning: false) }
    }

    /// How many devices wait now.
    var waiting: Int { state.withLock { $0.count } }

    /// Says an entity set changed (a write through this process, or another's notice):
    /// while devices wait, the watcher reads at once rather than at the end of its
    /// interval, so a waiting device hears of the write within milliseconds. A write whose
    /// notice was lost is seen at the watcher's next read.
    func written() {
        let rest = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.count > 0 else { return nil }
            state.written = true
            defer { state.rest = nil }
            return state.rest
        }
        rest?.resume()
    }

    /// Rests until the interval ends or this process writes; at once when it wrote since
    /// the last read began.
    private func rest() async {
        await withCheckedContinuation { continuation in
            let wrote = state.withLock { state -> Bool in
                defer { state.written = false }
                if !state.written { state.rest = continuation }
                return state.written
            }
            guard !wrote else { return continuation.resume() }
            Task {
                try? await Task.sleep(for: Self.interval)
                let rest = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.rest = nil }
                    return state.rest
                }
                rest?.resume()
            }
        }
    }

    /// Ends one wait, if it has not ended.
    private func resume(_ key: Key, _ id: UInt64, _ changed: Bool) {
        let ended = state.withLock { state -> (CheckedContinuation<Bool, Never>, Int)? in
            guard let index = state.waiters[key]?.firstIndex(where: { $0.id == id }),
                let waiter = state.waiters[key]?.remove(at: index)
            else { return nil }
            if state.waiters[key]?.isEmpty == true { state.waiters[key] = nil }
            state.count -= 1
            return (waiter.continuation, state.count)
        }
        guard let (continuation, count) = ended else { return }
        counted(count)
        continuation.resume(returning: changed)
    }

    /// Reads the watched sets every interval while anyone waits, and wakes those whose set
    /// passed their copy.
    private func watch() async {
        while true {
            let watched = state.withLock { state -> [String: Set<String>]? in
                guard state.count > 0 else {
                    state.watching = false
                    return nil
                }
                var byApp: [String: Set<String>] = [:]
                for key in state.waiters.keys { byApp[key.appID, default: []].insert(key.entitySet) }
                return byApp
            }
            guard let watched else { return }
            for (appID, sets) in watched {
                do {
                    let positions = try await storage.lastPositions(appID: appID, entitySets: sets)
                    for (entitySet, position) in positions {
                        wake(Key(appID: appID, entitySet: entitySet), at: position)
                    }
                } catch {
                    logger.warning("entity sets not watched", metadata: ["app": "\(appID)", "error": "\(error)"])
                }
            }
            await rest()
        }
    }

    /// Wakes the waiters of `key` whose copy `position` passes.
    private func wake(_ key: Key, at position: Int64) {
        let (woken, count) = state.withLock { state -> ([CheckedContinuation<Bool, Never>], Int) in
            guard let waiters = state.waiters[key] else { return ([], state.count) }
            let (passed, still) = (waiters.filter { $0.past < position }, waiters.filter { $0.past >= position })
            state.waiters[key] = still.isEmpty ? nil : still
            state.count -= passed.count
            return (passed.map(\.continuation), state.count)
        }
        guard !woken.isEmpty else { return }
        counted(count)
        for continuation in woken { continuation.resume(returning: true) }
    }
}

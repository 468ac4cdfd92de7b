import Foundation
import GangwayOffline

/// Sends the device's pending changes with the session of whoever is signed in, and keeps
/// the server's answers in the outbox for their authors, batch by batch.
///
/// A batch's changes leave the outbox only in the transaction that keeps its answers, so
/// a kill at any point sends a change again at worst, and the server answers a change it
/// has already ended with its first result.
public struct OutboxSender: Sendable {
    public let client: MobileServicesClient
    public let appID: String
    public let outbox: Outbox
    /// How often a batch is tried when the network, a timeout, a 5xx or a 429 stops it.
    public var attempts: Int
    /// The wait before the second try, doubled before each next one (or the server's
    /// `Retry-After`, when longer).
    public var firstWait: Duration
    /// How the sender waits between tries.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        client: MobileServicesClient,
        appID: String,
        outbox: Outbox,
        attempts: Int = 4,
        firstWait: Duration = .milliseconds(500),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.client = client
        self.appID = appID
        self.outbox = outbox
        self.attempts = max(1, attempts)
        self.firstWait = firstWait
        self.sleep = sleep
    }

    /// What one ``sendAll(token:registrations:batchSize:progress:)`` did.
    public struct Report: Sendable, Hashable {
        /// Changes the server answered, by how they ended.
        public var answered: [ChangeResult.Outcome: Int] = [:]

        /// How many changes the server answered.
        public var settled: Int { answered.values.reduce(0, +) }
    }

    /// Sends the ready changes, oldest first, until none is left.
    ///
    /// While the server works on one batch, the device keeps the answers to the one before
    /// (``Outbox/settle(_:)``). The next batch leaves out the changes sent and not yet
    /// settled, and, since only the oldest of an author's changes to an entity is ever
    /// ready, every later change to their entities: a rejection still holds those.
    ///
    /// - Parameters:
    ///   - registrations: Whose changes to send; `nil` sends every user's of the device
    ///     (when the app lets the next user carry the previous users' changes).
    ///   - progress: Called after each batch is settled, with the changes answered so
    ///     far and the number that were ready at the start.
    /// A transient failure (``ServiceError/isTransient``) is tried again, up to
    /// ``attempts`` times with a doubling wait; it never ends a change, which stays in the
    /// outbox until the server answers it.
    ///
    /// - Throws: ``ServiceError`` when the server could not be reached after the tries,
    ///   or refused the session; every change not answered stays in the outbox, and every
    ///   answer received before is kept.
    @discardableResult
    public func sendAll(
        token: SessionToken,
        registrations: Set<String>? = nil,
        batchSize: Int = EntityLimits.changesPerUpload,
        progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> Report {
        var report = Report()
        let total = try outbox.readyCount(registrations: registrations)
        let limit = max(1, min(batchSize, EntityLimits.changesPerUpload))
        var answered: [(change: PendingChange, answer: ChangeAnswer)] = []
        while true {
            let batch = try outbox.ready(
                limit: limit,
                registrations: registrations,
                excluding: Set(answered.map(\.change.changeID))
            )
            if batch.isEmpty {
                // Settling the last answers may let the next changes to their entities go.
                if answered.isEmpty { return report }
                try keep(answered, in: &report, total: total, progress: progress)
                answered = []
                continue
            }
            async let next = upload(batch, token: token)
            do {
                try keep(answered, in: &report, total: total, progress: progress)
            } catch {
                _ = try? await next
                throw error
            }
            answered = try await next
        }
    }

    /// Keeps a batch's answers in the outbox, and counts them.
    private func keep(
        _ answered: [(change: PendingChange, answer: ChangeAnswer)],
        in report: inout Report,
        total: Int,
        progress: (Int, Int) -> Void
    ) throws {
        guard !answered.isEmpty else { return }
        try outbox.settle(answered)
        for (_, answer) in answered { report.answered[answer.result.outcome, default: 0] += 1 }
        progress(report.settled, total)
    }

    private func upload(
        _ batch: [PendingChange],
        token: SessionToken
    ) async throws -> [(change: PendingChange, answer: ChangeAnswer)] {
        var wait = firstWait
        for _ in 1..<attempts {
            let failure: ServiceError
            do {
                return try await client.uploadSealedChanges(appID: appID, token: token, changes: batch)
            } catch {
                failure = error
            }
            guard failure.isTransient else { throw failure }
            try await sleep(max(wait, failure.retryAfter ?? .zero))
            wait *= 2
        }
        return try await client.uploadSealedChanges(appID: appID, token: token, changes: batch)
    }
}

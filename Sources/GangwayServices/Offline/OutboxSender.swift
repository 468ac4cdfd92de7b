import Foundation
import GangwayProtocol

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
        /// Changes the server answered, by how they ended; `held` ones stay in the outbox.
        public var answered: [ChangeResult.Outcome: Int] = [:]

        /// Of the `held` ones, those waiting for the company's backend to decide them
        /// (`DELIVERING`), not for their author to be let in again.
        public var delivering = 0

        /// How many changes the server ended (held ones aside).
        public var settled: Int { answered.filter { $0.key != .held }.values.reduce(0, +) }
    }

    /// Sends the ready changes, oldest first, until none is left.
    ///
    /// Up to ``uploadsInFlight`` batches travel at once, so the server opens and checks
    /// one while it applies another, and the device keeps the answers to one
    /// (``Outbox/settle(_:)``) while the others travel. A new batch leaves out the changes
    /// sent and not yet settled, and, since only the oldest of an author's changes to an
    /// entity is ever ready, every later change to their entities: a rejection still
    /// holds those.
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
    ///   answer received before, or by a batch that was travelling, is kept.
    @discardableResult
    public func sendAll(
        token: SessionToken,
        registrations: Set<String>? = nil,
        batchSize: Int = EntityLimits.changesPerUpload,
        progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> Report {
        let total = try outbox.readyCount(registrations: registrations)
        let limit = max(1, min(batchSize, EntityLimits.changesPerUpload))
        let ended = await withTaskGroup(of: Result<Answers, any Error>.self) { group in
            var report = Report()
            var travelling: Set<UUID> = []
            var inFlight = 0
            var answered: Answers = []
            var failure: (any Error)?
            while true {
                if !answered.isEmpty {
                    // Kept while the other batches travel, and before the next batch is
                    // chosen: the next changes to the answered entities can go in it, and
                    // no search of the outbox trips over changes that still wait.
                    do {
                        try keep(answered, in: &report, total: total, progress: progress)
                    } catch {
                        failure = failure ?? error
                    }
                    answered = []
                }
                while failure == nil, inFlight < Self.uploadsInFlight {
                    let batch: [PendingChange]
                    do {
                        batch = try outbox.ready(limit: limit, registrations: registrations, excluding: travelling)
                    } catch {
                        failure = error
                        break
                    }
                    guard !batch.isEmpty else { break }
                    travelling.formUnion(batch.map(\.changeID))
                    inFlight += 1
                    group.addTask { await upload(batch, token: token) }
                }
                guard inFlight > 0, let next = await group.next() else {
                    return failure.map { Result<Report, any Error>.failure($0) } ?? .success(report)
                }
                inFlight -= 1
                switch next {
                case .success(let answers):
                    // A held change stays in the outbox, and out of this round's batches:
                    // it goes again at the next sync.
                    answered = answers.filter { $0.answer.result.outcome != .held }
                    if answers.count > answered.count {
                        report.answered[.held, default: 0] += answers.count - answered.count
                        report.delivering += answers.count {
                            $0.answer.result.outcome == .held && $0.answer.result.rejection?.code == .delivering
                        }
                    }
                    travelling.subtract(answered.map(\.change.changeID))
                case .failure(let error):
                    // The batches still travelling are awaited and their answers kept.
                    failure = failure ?? error
                }
            }
        }
        return try ended.get()
    }

    /// How many batches ``sendAll(token:registrations:batchSize:progress:)`` has
    /// travelling at once.
    public static let uploadsInFlight = 2

    private typealias Answers = [(change: PendingChange, answer: ChangeAnswer)]

    /// Keeps a batch's answers in the outbox, and counts them.
    private func keep(
        _ answered: Answers,
        in report: inout Report,
        total: Int,
        progress: (Int, Int) -> Void
    ) throws {
        guard !answered.isEmpty else { return }
        try outbox.settle(answered)
        for (_, answer) in answered { report.answered[answer.result.outcome, default: 0] += 1 }
        progress(report.settled, total)
    }

    /// A batch's answers, or why it got none after the tries.
    private func upload(_ batch: [PendingChange], token: SessionToken) async -> Result<Answers, any Error> {
        var wait = firstWait
        var attempt = 1
        while true {
            do {
                return .success(try await client.uploadSealedChanges(appID: appID, token: token, changes: batch))
            } catch {
                guard error.isTransient, attempt < attempts else { return .failure(error) }
                do {
                    try await sleep(max(wait, error.retryAfter ?? .zero))
                } catch {
                    return .failure(error)
                }
                wait *= 2
                attempt += 1
            }
        }
    }
}

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

    public init(client: MobileServicesClient, appID: String, outbox: Outbox) {
        self.client = client
        self.appID = appID
        self.outbox = outbox
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
    /// - Parameters:
    ///   - registrations: Whose changes to send; `nil` sends every user's of the device
    ///     (when the app lets the next user carry the previous users' changes).
    ///   - progress: Called after each batch with the changes answered so far and the
    ///     number that were ready at the start.
    /// - Throws: ``ServiceError`` when the server could not be reached or refused the
    ///   session; every change not answered stays in the outbox.
    @discardableResult
    public func sendAll(
        token: SessionToken,
        registrations: Set<String>? = nil,
        batchSize: Int = EntityLimits.changesPerUpload,
        progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> Report {
        var report = Report()
        let total = try outbox.readyCount(registrations: registrations)
        while true {
            let batch = try outbox.ready(
                limit: max(1, min(batchSize, EntityLimits.changesPerUpload)),
                registrations: registrations
            )
            if batch.isEmpty { break }
            let answers = try await client.uploadSealedChanges(appID: appID, token: token, changes: batch)
            try outbox.settle(answers)
            for (_, answer) in answers { report.answered[answer.result.outcome, default: 0] += 1 }
            progress(report.settled, total)
        }
        return report
    }
}

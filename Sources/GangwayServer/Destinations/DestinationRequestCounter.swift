import Foundation
import GangwayServerStorage
import Logging

/// The requests forwarded to destinations, added up in memory and written about once a
/// ``delay``: a database write for every request would be a third of what the proxy adds
/// to it. Counts not yet written when the process ends are lost (a second's worth).
actor DestinationRequestCounter {
    /// How long counts wait to be written together.
    static let delay: Duration = .seconds(1)

    private struct Key: Hashable {
        var appID: String
        var destination: String
        var status: Int
        var hour: Date
    }

    private let storage: ServerStorage
    private let logger: Logger
    private var pending: [Key: Int] = [:]
    private var scheduled = false

    init(storage: ServerStorage, logger: Logger) {
        self.storage = storage
        self.logger = logger
    }

    /// Counts one request to `destination` answered with `status` (0: unreachable) at `date`.
    func add(appID: String, destination: String, status: Int, at date: Date) {
        pending[
            Key(appID: appID, destination: destination, status: status, hour: ActivityBucket.hour.start(of: date)),
            default: 0
        ] += 1
        guard !scheduled else { return }
        scheduled = true
        Task {
            try? await Task.sleep(for: Self.delay)
            await self.write()
        }
    }

    private func write() async {
        let counts = pending
        pending = [:]
        scheduled = false
        for (key, count) in counts {
            do {
                try await storage.countDestinationRequests(
                    appID: key.appID,
                    destination: key.destination,
                    status: key.status,
                    count: count,
                    at: key.hour
                )
            } catch {
                logger.warning("a destination's requests could not be counted", metadata: ["error": "\(error.code)"])
            }
        }
    }
}

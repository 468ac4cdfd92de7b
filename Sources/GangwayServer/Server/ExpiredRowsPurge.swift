import Foundation
import GangwayProtocol
import GangwayServerStorage
import Logging
import ServiceLifecycle

/// Deletes the rows that are of no use any more (``ExpiringRows``) at start and then
/// every ``interval``, while the server serves: expired device grants, codes, federated
/// sign-ins, sessions and refresh tokens, old sign-in counts and device cookies, the
/// overview's counts past ``ActivityBucket/keptFor``, and the tombstones of entities
/// removed longer ago than each app keeps them (`removalsKeptDays`, by default
/// ``GangwayProtocol/APIDefaults/removalsKeptDays``). Several
/// processes on one PostgreSQL database may each run it; a deletion twice is a no-op.
struct ExpiredRowsPurge: Service {
    /// How often the rows are purged.
    static let interval: Duration = .seconds(10 * 60)

    let storage: ServerStorage
    let now: @Sendable () -> Date
    let logger: Logger
    let metrics: ServerMetrics

    /// Purges every kind of row once; the number deleted.
    static func purge(_ storage: ServerStorage, at now: Date) async throws -> Int {
        var deleted = try await storage.purgeExpired(at: now) + storage.purgeActivity(at: now)
        for app in try await storage.apps() {
            let kept = Double(app.settings.removalsKeptDays) * 86_400
            deleted += try await storage.purgeRemovals(of: app.id, before: now.addingTimeInterval(-kept))
        }
        return deleted
    }

    func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                let deleted = try await Self.purge(storage, at: now())
                metrics.purged(deleted)
                if deleted > 0 { logger.info("expired rows deleted", metadata: ["rows": "\(deleted)"]) }
            } catch {
                logger.warning("expired rows not deleted; trying again later", metadata: ["reason": "\(error)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
            } catch {
                return
            }
        }
    }
}

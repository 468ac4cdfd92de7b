import Foundation
import GangwayProtocol
import GangwayServerStorage
import Logging
import ServiceLifecycle

/// Delivers devices' changes to the company's backend while the server serves
/// (``ChangeDelivery``): every ``interval`` it claims the changes due, the first waiting of
/// each entity, ``batch`` at a time, delivers them at once, and records each answer. A
/// claim lasts ``lease``, longer than a delivery may take; a server that stops mid-way
/// leaves its claims to lapse, and the deliveries are sent again, with the same
/// idempotency key. Several processes on one PostgreSQL database may each run it.
struct ChangeDeliveries: Service {
    static let interval: Duration = .milliseconds(200)
    /// Changes claimed and delivered at once.
    static let batch = 128
    /// How long a claim lasts.
    static let lease: TimeInterval = 30

    let delivery: ChangeDelivery

    /// Delivers the changes due now, and once more while a full batch came; how many
    /// were answered (taken or refused).
    static func deliverDue(_ delivery: ChangeDelivery) async throws -> Int {
        var answered = 0
        while true {
            let services = delivery.services
            let now = services.now()
            let due = try await services.storage.claimDeliveries(
                at: now,
                until: now.addingTimeInterval(lease),
                limit: batch
            )
            guard !due.isEmpty else { return answered }
            var targets: [String: ChangeDelivery.Target?] = [:]
            for record in due {
                let key = record.appID + "/" + record.change.entitySet
                if targets[key] == nil { targets[key] = .some(try await target(of: record, services)) }
            }
            let outcomes = await withTaskGroup(of: (DeliveryRecord, DeliveryOutcome).self) { group in
                for record in due {
                    let target = targets[record.appID + "/" + record.change.entitySet] ?? nil
                    group.addTask {
                        guard let target else {
                            let attempt = record.attempts + 1
                            return (
                                record,
                                .failed(
                                    reason: "The set has no data source that delivers changes, or its destination "
                                        + "is gone.",
                                    retryAt: services.now().addingTimeInterval(
                                        ChangeDelivery.retryDelay(after: attempt, random: 1)
                                    ),
                                    park: attempt >= ChangeDelivery.attempts
                                )
                            )
                        }
                        return (record, await delivery.deliver(record, to: target, random: Double.random(in: 0...1)))
                    }
                }
                var outcomes: [(delivery: DeliveryRecord, outcome: DeliveryOutcome)] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            // The round's answers in one transaction: a server that stops before it commits
            // sends them again, with the same keys.
            do {
                answered += try await services.storage.finishDeliveries(outcomes, at: services.now()).count
            } catch {
                services.logger.warning("delivered changes' answers were not recorded; they are sent again")
            }
            if due.count < batch { return answered }
        }
    }

    /// Where a delivery goes: its app, its set's source, destination and schema; `nil`
    /// when the set's source no longer delivers.
    private static func target(
        of record: DeliveryRecord,
        _ services: APIServices
    ) async throws
        -> ChangeDelivery.Target?
    {
        let storage = services.storage
        guard let app = try await storage.app(id: record.appID),
            let source = try await storage.dataSource(appID: record.appID, entitySet: record.change.entitySet),
            source.delivers,
            let destination = try await storage.destination(appID: record.appID, name: source.destination)
        else { return nil }
        let schema = try await storage.entitySchemas(appID: record.appID)[record.change.entitySet]
        return .init(app: app, source: source, destination: destination, schema: schema)
    }

    func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                _ = try await Self.deliverDue(delivery)
            } catch {
                delivery.services.logger.warning("changes not delivered; trying again later")
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
            } catch {
                return
            }
        }
    }
}

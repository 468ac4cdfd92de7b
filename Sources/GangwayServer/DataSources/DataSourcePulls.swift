import Foundation
import GangwayServerStorage
import Logging
import ServiceLifecycle

/// Runs the reads of data sources that are due (on their schedule, or asked for), while
/// the server serves: it looks every ``interval`` and starts each due read that no other
/// read holds, at most ``concurrentReads`` at once in this process. Several processes on
/// one PostgreSQL database may each run it: a read is claimed in the database first
/// (``GangwayServerStorage/ServerStorage/claimPull(appID:entitySet:at:until:)``), so one
/// process reads a source at a time.
struct DataSourcePulls: Service {
    /// How often due reads are looked for: an asked-for read starts within it.
    static let interval: Duration = .seconds(1)
    /// The most reads one process runs at once.
    static let concurrentReads = 4

    let read: DataSourceRead

    /// Runs every due read, `concurrentReads` at a time, and returns when all have ended:
    /// how each went.
    static func runDue(_ read: DataSourceRead) async throws -> [DataSourceRun] {
        let due = try await read.services.storage.dataSourcesDue(at: read.services.now())
        return await withTaskGroup(of: DataSourceRun?.self) { group in
            var outcomes: [DataSourceRun] = []
            var started = 0
            for source in due {
                if started >= concurrentReads, let outcome = await group.next() {
                    outcome.map { outcomes.append($0) }
                }
                group.addTask { await read.run(appID: source.appID, entitySet: source.entitySet) }
                started += 1
            }
            for await outcome in group { outcome.map { outcomes.append($0) } }
            return outcomes
        }
    }

    func run() async throws {
        let reads = Running()
        await withDiscardingTaskGroup { group in
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                do {
                    for source in try await read.services.storage.dataSourcesDue(at: read.services.now())
                    where await reads.start(source.appID + "/" + source.entitySet) {
                        group.addTask { [read] in
                            _ = await read.run(appID: source.appID, entitySet: source.entitySet)
                            await reads.end(source.appID + "/" + source.entitySet)
                        }
                    }
                } catch {
                    read.services.logger.warning("data sources not looked at; trying again later")
                }
                do {
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
                } catch {
                    return
                }
            }
        }
    }

    /// The reads under way in this process, at most ``DataSourcePulls/concurrentReads``.
    private actor Running {
        private var keys: Set<String> = []

        func start(_ key: String) -> Bool {
            guard keys.count < DataSourcePulls.concurrentReads else { return false }
            return keys.insert(key).inserted
        }

        func end(_ key: String) {
            keys.remove(key)
        }
    }
}

import Foundation
import GangwayProtocol
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Logging
import Testing

@testable import GangwayServer

/// The probes a supervisor and a load balancer make: `/health/live` (the process
/// answers) and `/health/ready` (its database answers and it is not stopping), both
/// unauthenticated and cheap.
@Suite(
    "Health probes: live while the process answers; ready while its database answers and it is not draining",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct HealthProbeTests {
    @Test(
        "live and ready answer 200, with no credential; draining, ready answers 503 and live still 200",
        arguments: Backend.available
    )
    func liveAndReady(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.run { api in
            let live = try await api.send(.get, "/health/live")
            #expect(live.status == .ok)
            #expect(try live.decode(Components.Schemas.Liveness.self).status == .ok)
            let ready = try await api.send(.get, "/health/ready")
            #expect(ready.status == .ok)
            let readiness = try ready.decode(Components.Schemas.Readiness.self)
            #expect(readiness.status == .ready && readiness.reason == nil)
            #expect(readiness.storage.rawValue == backend.rawValue)

            fixture.server.readiness.beginDraining()
            let draining = try await api.send(.get, "/health/ready")
            #expect(draining.status == .serviceUnavailable)
            let drained = try draining.decode(Components.Schemas.Readiness.self)
            #expect(drained.status == .notReady && drained.reason == .draining)
            #expect(drained.message?.contains("stopping") == true)
            #expect(try await api.send(.get, "/health/live").status == .ok, "the process still answers")
            #expect(try await api.send(.get, "/health").status == .ok, "the older probe is unchanged")
        }
    }

    @Test(
        "a database that does not answer makes the server not ready, within the wait, and says so without its address"
    )
    func databaseAway() async throws {
        // PostgreSQL where nothing listens (port 9, discard): every connection fails.
        let driver = try PostgresDriver(
            url: "postgres://gangway:secret-password@127.0.0.1:9/gangway",
            logger: Logger(label: "test")
        )
        let storage = ServerStorage(driver)
        let readiness = ServerReadiness(storage: storage)
        let started = ContinuousClock.now
        #expect(await readiness.reason() == .storage)
        #expect(ContinuousClock.now - started < ServerReadiness.storageWait * 3, "given up at the wait, not later")
        // Within the recheck, the answer stands: the database is not asked again.
        #expect(await readiness.reason() == .storage)
        #expect(readiness.questionsAsked == 1)
        readiness.beginDraining()
        #expect(await readiness.reason() == .draining, "draining is said first")
    }

    @Test("a flood of probes at once asks the database one question, and each probe gets its answer")
    func floodSharesOneQuestion() async throws {
        let fixture = try await ServerFixture()
        try await fixture.run { _ in
            let readiness = ServerReadiness(storage: fixture.server.storage)
            let answers = await withTaskGroup(of: ServerReadiness.Reason?.self) { group in
                for _ in 0..<200 { group.addTask { await readiness.reason() } }
                var answers: [ServerReadiness.Reason?] = []
                for await answer in group { answers.append(answer) }
                return answers
            }
            #expect(answers.count == 200 && answers.allSatisfy { $0 == nil }, "all ready")
            #expect(readiness.questionsAsked == 1, "one question for the flood")
        }
    }
}

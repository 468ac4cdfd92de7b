import GangwayServerTesting
import GangwayTesting
import Testing

@Suite(
    "Random sequences of storage operations end on SQLite and PostgreSQL as on a model in memory",
    .servingTurn,
    .tags(.postgres, .slow),
    .skipsTags
)
struct StorageModelTests {
    /// What the sequences must reach, or the agreement would say little: each kind of
    /// duplicate, each refusal of a change, full sets, lock and wipe, each kind of purge.
    static let expectedEvents: Set<String> = [
        "duplicate user", "duplicate session", "duplicate change", "applied", "conflict",
        "rejected SEQUENCE_REUSED", "rejected ENTITY_NOT_FOUND", "rejected ENTITY_SET_FULL",
        "rejected CREATION_LIMIT_REACHED", "rejected FIELD_NOT_WRITABLE", "put into a full set",
        "registration replaced", "registration locked", "registration wiped", "joined a revoked family",
        "spent twice", "purged sessions", "purged refresh tokens", "purged sign-in attempts", "purged device cookies",
        "removed an entity", "wrote over a removal", "purged removals", "schema set", "schema refused",
        "schema removed", "put refused by the schema", "rejected FIELD_NOT_VALID", "moved out of a subset value",
        "subset field changed",
    ]

    @Test(
        "sign-ins, registrations, uploads with duplicates and conflicts, locks, wipes, refresh tokens and purges agree with the model",
        arguments: Backend.available
    )
    func storageAgreesWithTheModel(backend: Backend) async throws {
        let seed = StorageModelCheck.seed
        let outcome = try await StorageUnderTest.withStorage(on: backend) { storage in
            // PostgreSQL answers each query over a connection: a tenth as many calls a second.
            await StorageModelCheck(sequences: StorageModelCheck.sequences(standard: backend == .postgresql ? 80 : 200))
                .run(seed: seed, on: storage)
        }
        if let counterexample = outcome.counterexample {
            Issue.record("On \(backend), \(counterexample)")
            return
        }
        let missed = Self.expectedEvents.subtracting(outcome.events)
        #expect(missed.isEmpty, "\(outcome.sequences) sequences of seed \(seed) never reached \(missed.sorted())")
    }

    @Test("a model that forgets change IDs disagrees, and the sequence it disagrees on shrinks to a few operations")
    func disagreementShrinks() async throws {
        let outcome = try await StorageUnderTest.withStorage(on: .sqlite) { storage in
            await StorageModelCheck(flaw: .forgetsChangeIDs).run(seed: 34, on: storage)
        }
        let counterexample = try #require(outcome.counterexample)
        #expect(counterexample.shrunk.count <= 4, "\(counterexample)")
        #expect(counterexample.shrunk.count < counterexample.original.count)
        #expect(counterexample.failure.contains("applyChanges"), "\(counterexample)")
    }
}

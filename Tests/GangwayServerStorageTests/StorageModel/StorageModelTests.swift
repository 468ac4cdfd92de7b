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
        // PostgreSQL answers each query over a connection: a tenth as many calls a second.
        let standard = StorageModelCheck.sequences(standard: backend == .postgresql ? 80 : 200)
        var events: Set<String> = []
        var sequences = 0
        // A seed whose sequences miss an event rare in them (a write over a removal) runs
        // a few more batches, each from a seed of its own, before the miss counts.
        for batch in 0..<4 where batch == 0 || !Self.expectedEvents.isSubset(of: events) {
            let batchSeed = seed &+ UInt64(batch)
            let outcome = try await StorageUnderTest.withStorage(on: backend) { storage in
                await StorageModelCheck(sequences: batch == 0 ? standard : standard / 2).run(
                    seed: batchSeed,
                    on: storage
                )
            }
            if let counterexample = outcome.counterexample {
                Issue.record("On \(backend), \(counterexample)")
                return
            }
            events.formUnion(outcome.events)
            sequences += outcome.sequences
        }
        let missed = Self.expectedEvents.subtracting(events)
        #expect(missed.isEmpty, "\(sequences) sequences from seed \(seed) on never reached \(missed.sorted())")
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

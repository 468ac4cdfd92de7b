import Foundation

/// The model-based property of the server's storage: random sequences of operations,
/// drawn from a seed, end on the storage as they end on ``StorageModel``; the first
/// sequence that does not is shrunk — chunks of operations dropped, then each operation
/// made simpler — while it still fails.
struct StorageModelCheck: Sendable {
    /// A sequence the storage and the model disagree on, and the shortest form of it
    /// the shrinking found.
    struct Counterexample: Sendable, Equatable, CustomStringConvertible {
        /// The seed of the check: running with `GANGWAY_MODEL_SEED` set to it draws the
        /// same sequences, ``original`` the ``sequence``-th.
        var seed: UInt64
        var sequence: Int
        var original: [StorageOperation]
        var shrunk: [StorageOperation]
        /// Why ``shrunk`` fails.
        var failure: String
        /// The runs the shrinking took.
        var shrinkRuns: Int

        var description: String {
            let steps = shrunk.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
            return """
                the storage and the model disagree on \(shrunk.count) operations (shrunk from \
                \(original.count) in \(shrinkRuns) runs):
                \(steps.isEmpty ? "  (none: at the comparison at the end)" : steps)
                \(failure)
                Run it again with \(StorageModelCheck.seedVariable)=\(seed) (sequence \(sequence)).
                """
        }
    }

    /// What a check found.
    struct Outcome: Sendable {
        var counterexample: Counterexample?
        /// The events of ``StorageModel/events`` the sequences reached.
        var events: Set<String>
        var sequences: Int
        var operations: Int
    }

    /// The environment variable that sets the seed, to run a failing sequence again.
    static let seedVariable = "GANGWAY_MODEL_SEED"

    /// The seed of `GANGWAY_MODEL_SEED`, or a new one.
    static var seed: UInt64 {
        ProcessInfo.processInfo.environment[seedVariable].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
    }

    /// The number of sequences `GANGWAY_MODEL_SEQUENCES` asks for (for a longer search),
    /// or `standard`.
    static func sequences(standard: Int) -> Int {
        ProcessInfo.processInfo.environment["GANGWAY_MODEL_SEQUENCES"].flatMap { Int($0) } ?? standard
    }

    var sequences = 150
    var maximumLength = 40
    /// Every this many sequences, from the first, one has a ``StorageOperation/flood(author:)``.
    var floodEvery = 20
    /// The most sequences a shrinking runs.
    var maximumShrinkRuns = 500
    var flaw: StorageModel.Flaw?

    /// Runs the sequences drawn from `seed` on `storage`, each in a namespace of its own;
    /// stops at the first that fails, shrunk.
    func run(seed: UInt64, on storage: StorageUnderTest.Storage) async -> Outcome {
        var executions = 0
        var outcome = Outcome(counterexample: nil, events: [], sequences: 0, operations: 0)
        func execute(_ operations: [StorageOperation]) async -> StorageModelRunner.Disagreement? {
            executions += 1
            let namespace = "x" + String(String(executions + 100_000).dropFirst())
            let runner = StorageModelRunner(storage: storage, namespace: namespace, flaw: flaw)
            let disagreement = await runner.run(operations)
            outcome.events.formUnion(runner.model.events)
            return disagreement
        }
        for index in 0..<sequences {
            var random = SeededRandom(seed: Self.mix(seed, index))
            let length = Int.random(in: maximumLength / 2...maximumLength, using: &random)
            let operations = StorageOperation.sequence(
                length: length,
                flood: index % floodEvery == 0,
                using: &random
            )
            outcome.sequences += 1
            outcome.operations += operations.count
            guard let disagreement = await execute(operations) else { continue }
            var shrunk = (operations: operations, failure: disagreement)
            var runs = 0
            var shrinking = true
            while shrinking, runs < maximumShrinkRuns {
                shrinking = false
                for candidate in Self.candidates(shrinking: shrunk.operations) where runs < maximumShrinkRuns {
                    runs += 1
                    if let failure = await execute(candidate) {
                        shrunk = (candidate, failure)
                        shrinking = true
                        break
                    }
                }
            }
            outcome.counterexample = Counterexample(
                seed: seed,
                sequence: index,
                original: operations,
                shrunk: shrunk.operations,
                failure: "\(shrunk.failure)",
                shrinkRuns: runs
            )
            return outcome
        }
        return outcome
    }

    /// The seed of the `index`-th sequence: the check's seed scrambled first, so that
    /// checks of neighbouring seeds share no sequences.
    private static func mix(_ seed: UInt64, _ index: Int) -> UInt64 {
        var scrambled = SeededRandom(seed: seed)
        var random = SeededRandom(seed: scrambled.next() &+ UInt64(index))
        return random.next()
    }

    /// Smaller sequences than `operations`, the likeliest to shrink most first: without
    /// half of it, each quarter, ..., each operation; then with one operation simpler.
    static func candidates(shrinking operations: [StorageOperation]) -> [[StorageOperation]] {
        var candidates: [[StorageOperation]] = []
        var size = max(operations.count / 2, 1)
        while size >= 1, !operations.isEmpty {
            for start in stride(from: 0, to: operations.count, by: size) {
                var fewer = operations
                fewer.removeSubrange(start..<min(start + size, operations.count))
                candidates.append(fewer)
            }
            size /= 2
        }
        for index in operations.indices {
            for simpler in operations[index].simplifications {
                var simplified = operations
                simplified[index] = simpler
                candidates.append(simplified)
            }
        }
        return candidates
    }
}

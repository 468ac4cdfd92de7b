import Synchronization
import Testing

@testable import GangwayServer

@Suite("Shared reads: callers asking the same at once share one read, and nothing outlives it")
struct SharedReadsTests {
    /// A read that counts its runs and ends once the gate opens (at once after).
    final class Gate: Sendable {
        private struct State {
            var open = false
            var held: [CheckedContinuation<Void, Never>] = []
        }

        let runs = Atomic<Int>(0)
        /// Callers about to ask.
        let entered = Atomic<Int>(0)
        private let state = Mutex(State())

        func read(_ answer: Int) async throws -> Int {
            runs.add(1, ordering: .relaxed)
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.held.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
            return answer
        }

        func open() {
            let held = state.withLock { state in
                state.open = true
                defer { state.held = [] }
                return state.held
            }
            for continuation in held { continuation.resume() }
        }

        var waiting: Int { state.withLock { $0.held.count } }
    }

    @Test("fifty callers of one key while its read runs get its answer from one run; another key reads alone")
    func concurrentCallersShare() async throws {
        let reads = SharedReads<String, Int>()
        let gate = Gate()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    gate.entered.add(1, ordering: .relaxed)
                    return try await reads.value(of: "a") { try await gate.read(1) }
                }
            }
            group.addTask { try await reads.value(of: "b") { try await gate.read(2) } }
            while gate.waiting < 2 || gate.entered.load(ordering: .relaxed) < 50 {
                try await Task.sleep(for: .milliseconds(5))
            }
            // A moment for the last callers of "a" to join the running read before it ends.
            try await Task.sleep(for: .milliseconds(100))
            gate.open()
            var answers: [Int] = []
            for try await answer in group { answers.append(answer) }
            #expect(answers.filter { $0 == 1 }.count == 50 && answers.filter { $0 == 2 }.count == 1)
        }
        #expect(gate.runs.load(ordering: .relaxed) == 2)

        // Once it ended, the next caller reads afresh.
        #expect(try await reads.value(of: "a") { try await gate.read(3) } == 3)
        #expect(gate.runs.load(ordering: .relaxed) == 3)
    }

    @Test("a failed read fails every caller that shared it, and the next caller reads again")
    func failuresAreShared() async throws {
        struct Failed: Error {}
        let reads = SharedReads<String, Int>()
        await #expect(throws: Failed.self) { try await reads.value(of: "a") { throw Failed() } }
        #expect(try await reads.value(of: "a") { 7 } == 7)
    }
}

import Foundation
import GangwayTesting
import Testing

@Suite("Waiting for a child process: off the shared threads, and never for ever")
struct ProcessExitTests {
    static func started(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c"] + arguments
        try process.run()
        return process
    }

    @Test("a child that ends is waited for, with its status")
    func ends() async throws {
        let process = try Self.started(["exit 3"])
        try await process.exit()
        #expect(process.terminationStatus == 3)
    }

    @Test("a child still running after the limit is killed, and the wait says so")
    func killedAfterTheLimit() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        try process.run()
        let began = ContinuousClock.now
        await #expect(throws: Process.DidNotExit.self) { try await process.exit(within: .milliseconds(300)) }
        #expect(!process.isRunning)
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        #expect(ContinuousClock.now - began < .seconds(30))
    }

    @Test("many waits at once hold none of the shared threads: a task on them still runs meanwhile")
    func manyAtOnce() async throws {
        let processes = try (0..<8).map { _ in try Self.started(["sleep 1"]) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for process in processes { group.addTask { try await process.exit() } }
            // With the waits blocking the shared threads, this would run only once they end.
            let began = ContinuousClock.now
            let ran = await Task { ContinuousClock.now }.value
            #expect(ran - began < .milliseconds(900))
            try await group.waitForAll()
        }
        #expect(processes.allSatisfy { !$0.isRunning && $0.terminationStatus == 0 })
    }
}

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
        // One that would never end by itself.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["infinity"]
        try process.run()
        await #expect(throws: Process.DidNotExit.self) { try await process.exit(within: .milliseconds(300)) }
        #expect(!process.isRunning)
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
    }
}

import Foundation
import GangwaySystem
import Testing

@Suite("External tools: found on a search path, run, their output collected")
struct ExternalToolTests {
    @Test("a program that is not installed is nil, not an error")
    func missingProgram() async throws {
        let tool = ExternalTool("gangway-no-such-program")
        #expect(tool.executable == nil)
        #expect(try await tool.run(["--help"]) == nil)
    }

    @Test("the default search path looks in the usual places for the name")
    func defaultSearchPath() {
        #expect(
            ExternalTool("wrk").searchPath == ["/usr/bin/wrk", "/usr/local/bin/wrk", "/opt/homebrew/bin/wrk"]
        )
    }

    @Test("the first executable on the search path is the one run")
    func firstExecutableWins() async throws {
        let tool = ExternalTool("echo", searchPath: ["/nonexistent/echo", "/bin/echo", "/usr/bin/echo"])
        #expect(tool.executable == "/bin/echo")
        let output = try #require(try await tool.run(["-n", "hello", "there"]))
        #expect(output.status == 0)
        #expect(output.text == "hello there")
    }

    @Test("standard input reaches the program, and its exit status comes back")
    func inputAndStatus() async throws {
        let cat = ExternalTool("cat", searchPath: ["/bin/cat", "/usr/bin/cat"])
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let echoed = try #require(try await cat.run([], input: bytes))
        #expect(echoed.standardOutput == bytes)

        let shell = ExternalTool("sh", searchPath: ["/bin/sh"])
        let failed = try #require(try await shell.run(["-c", "echo out; echo err >&2; exit 3"]))
        #expect(failed.status == 3)
        // Standard error is discarded, never mixed into the output.
        #expect(failed.text == "out\n")
    }

    @Test("a program a signal ends reports 128 plus the signal's number")
    func signalStatus() async throws {
        let shell = ExternalTool("sh", searchPath: ["/bin/sh"])
        let killed = try #require(try await shell.run(["-c", "echo started; kill -KILL $$"]))
        #expect(killed.status == 128 + 9)
        #expect(killed.text == "started\n")
    }

    @Test("output beyond the limit is an error, not a program's memory taken")
    func outputLimit() async throws {
        let shell = ExternalTool("sh", searchPath: ["/bin/sh"])
        let limit = ExternalTool.outputLimit
        await #expect(throws: (any Error).self) {
            _ = try await shell.run(["-c", "head -c \(limit + 1) /dev/zero"])
        }
        let atLimit = try #require(try await shell.run(["-c", "head -c \(limit) /dev/zero"]))
        #expect(atLimit.standardOutput.count == limit)
    }

    #if os(Linux)
        @Test("the open-file count Process.start checks rises with every file opened")
        func openFileCount() throws {
            let before = try #require(Process.openFileCount())
            let pipes = (0..<50).map { _ in Pipe() }
            let during = try #require(Process.openFileCount())
            withExtendedLifetime(pipes) {}
            #expect(during >= before + 100 - 20)
            // The other tests' files (this test's own hundred aside) stay under the count
            // past which Process.start refuses.
            #expect(before < Process.safeOpenFileCount)
        }
    #endif

    @Test("a file that is not executable is not a program")
    func notExecutable() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-tool-\(UUID().uuidString)")
        try Data("#!/bin/sh\necho no\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let tool = ExternalTool("script", searchPath: [file.path])
        #expect(tool.executable == nil)
        #expect(try await tool.run([]) == nil)
    }
}

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

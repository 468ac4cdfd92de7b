import Foundation
import GangwayTesting
import Testing

/// The `gangway` users run carries no test seam: the test hooks live in the test host.
@Suite("The shipped gangway binary has no test seams", .tags(.endToEnd), .skipsTags)
struct ShippedBinaryTests {
    let temporary: TemporaryDirectory
    let gangway: GangwayProcess
    let path: String
    let passcode = "Ramp-Check-4711"

    init() throws {
        temporary = try TemporaryDirectory(prefix: "gangway-shipped-test")
        var process = GangwayProcess(deviceKeys: temporary.appending("keys"))
        process.executable = GangwayProcess.shippedExecutable
        gangway = process
        path = temporary.appending("store").path
    }

    @Test func aCheapKeyDerivationAskedForInTheEnvironmentIsIgnored() async throws {
        defer { temporary.remove() }
        // GangwayProcess sets GANGWAY_KDF_ROUNDS=1000 for every run.
        let created = try await gangway.run(["store", "init", "--path", path, "--passcode-stdin"], lines: [passcode])
        #expect(created.status == 0, "\(created.standardError)")
        let info = try await gangway.run(["store", "info", "--path", path])
        #expect(info.output.contains("pbkdf2-hmac-sha256, 600000 rounds"), "\(info.output)")
        // The test host, given the same environment, does lower it: the hook is real.
        var host = gangway
        host.executable = GangwayProcess.executable
        let other = temporary.appending("host-store").path
        await #expect(
            try host.run(["store", "init", "--path", other, "--passcode-stdin"], lines: [passcode]).status == 0
        )
        await #expect(try host.run(["store", "info", "--path", other]).output.contains("1000 rounds"))
    }

    @Test func aCrashPointInTheEnvironmentDoesNotEndTheProcess() async throws {
        defer { temporary.remove() }
        await #expect(
            try gangway.run(["store", "init", "--path", path, "--passcode-stdin"], lines: [passcode]).status == 0
        )
        let changed = try await gangway.run(
            ["store", "passwd", "--path", path, "--passcode-stdin"],
            lines: [passcode, "Next-Passcode-9"],
            extraEnvironment: ["GANGWAY_TEST_CRASH_AT": "passcode-slot-written"]
        )
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(changed.output.contains("passcode changed"))
        let get = try await gangway.run(
            ["store", "list", "--path", path, "--passcode-stdin"],
            lines: ["Next-Passcode-9"]
        )
        #expect(get.status == 0, "\(get.standardError)")
    }

    @Test func theBinaryNamesNoTestVariableAndLinksNoTestSupport() throws {
        // Each test has the suite's directory, used or not.
        defer { temporary.remove() }
        let binary = try Data(contentsOf: GangwayProcess.shippedExecutable)
        #expect(binary.count > 1_000_000)
        for needle in [
            "GANGWAY_KDF_ROUNDS", "GANGWAY_TEST_CRASH_AT", "GANGWAY_TEST_UPLOAD_BATCH", "GangwayTesting",
            "ScriptedPresenter",
            // The test support's variables: the inner loop's and the tests' database.
            "GANGWAY_SKIP_TAGS", "GANGWAY_POSTGRES_URL",
        ] {
            #expect(binary.range(of: Data(needle.utf8)) == nil, "the shipped binary holds \(needle)")
        }
        // The same search finds them in the test host, so it can fail.
        let host = try Data(contentsOf: GangwayProcess.executable)
        #expect(host.range(of: Data("GANGWAY_KDF_ROUNDS".utf8)) != nil)
    }

    @Test("the binary carries Gangway's texts and API document in its code: copied anywhere, it needs no bundle")
    func theBinaryNeedsNoResourceBundle() async throws {
        defer { temporary.remove() }
        let binary = try Data(contentsOf: GangwayProcess.shippedExecutable)
        // SwiftPM's bundle accessor names the bundle it looks for beside the binary.
        for module in ["GangwayProtocol", "GangwayScreens", "GangwayTerminal"] {
            let bundle = "Gangway_\(module).resources"
            #expect(binary.range(of: Data(bundle.utf8)) == nil, "the binary looks for \(bundle)")
        }
        for text in [#""openapi": "3.1.0""#, #""terminal.home.title""#, #""welcome.title""#] {
            #expect(binary.range(of: Data(text.utf8)) != nil, "the binary does not hold \(text)")
        }
        // Run from a copy in a directory of its own, it still reads its texts.
        let copy = temporary.appending("bin/gangway")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: GangwayProcess.shippedExecutable, to: copy)
        var copied = gangway
        copied.executable = copy
        let help = try await copied.run(["admin", "policy", "--help"], lines: [])
        #expect(help.status == 0 && help.output.contains("--min-length"), "\(help.output)")
    }

    @Test("gangway-benchmark measures with the shipped parts: no test support linked")
    func theBenchmarkLinksNoTestSupport() throws {
        defer { temporary.remove() }
        let binary = try Data(contentsOf: GangwayProcess.benchmarkExecutable)
        #expect(binary.count > 1_000_000)
        for needle in [
            "ScriptedPresenter", "RecordingSessionUI", "RunningTestServer", "GangwayServerTesting", "GANGWAY_SKIP_TAGS",
            "GANGWAY_POSTGRES_URL",
        ] {
            #expect(binary.range(of: Data(needle.utf8)) == nil, "gangway-benchmark holds \(needle)")
        }
        // The same search finds them where they are linked, so it can fail.
        let host = try Data(contentsOf: GangwayProcess.executable)
        let tests = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[0]))
        #expect(
            host.range(of: Data("ScriptedPresenter".utf8)) != nil
                || tests.range(of: Data("ScriptedPresenter".utf8)) != nil
        )
    }
}

import Foundation
import GangwayTesting
import Testing

/// The shipped `gangway` whose launch fails, as a person meets it: the lock it took in the
/// data directory goes with it (and the empty directories made for it), while a lock it
/// did not make, or another running app's, stays.
@Suite("A failed launch leaves no lock of its own behind, and never touches another's", .tags(.endToEnd), .skipsTags)
struct FailedLaunchEndToEndTests {
    /// Nothing listens there.
    static let unreachable = "http://127.0.0.1:1"

    /// The binary people run, not the test host.
    static func shipped(_ directory: TemporaryDirectory) -> GangwayProcess {
        var runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        runner.executable = GangwayProcess.shippedExecutable
        return runner
    }

    static func exists(_ url: URL, _ path: String = "") -> Bool {
        FileManager.default.fileExists(atPath: path.isEmpty ? url.path : url.appendingPathComponent(path).path)
    }

    @Test("an unreachable server: the lock goes, and so does the data directory the launch made for it")
    func unreachableServer() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-failed")
        defer { directory.remove() }
        let data = directory.appending("data")
        let result = try await Self.shipped(directory).run(
            ["--data-dir", data.path, "--server", Self.unreachable],
            lines: []
        )
        #expect(result.status == 1, "\(result.output)\(result.standardError)")
        #expect(!Self.exists(data, "device/lock"))
        #expect(!Self.exists(data), "the directories made for the lock were empty again, and went")
    }

    @Test("a lock file an earlier run left stays when a later launch fails")
    func anEarlierRunsLockStays() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-failed")
        defer { directory.remove() }
        let runner = Self.shipped(directory)
        let data = directory.appending("data")
        // A look at the demo, then quit: the device's directory and its lock file stay.
        let first = try await runner.run(["--data-dir", data.path, "--bcrypt-cost", "4"], lines: ["4", "2"])
        #expect(first.status == 0, "\(first.output)\(first.standardError)")
        #expect(Self.exists(data, "device/lock"))

        let failed = try await runner.run(["--data-dir", data.path, "--server", Self.unreachable], lines: [])
        #expect(failed.status == 1, "\(failed.output)\(failed.standardError)")
        #expect(Self.exists(data, "device/lock"), "not the failed launch's own file")
        #expect(Self.exists(data, "server/lock"))
    }

    @Test("a passcode given up at the first launch: both locks go, the data made before stays")
    func passcodeGivenUp() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-failed")
        defer { directory.remove() }
        let data = directory.appending("data")
        // Onboarding up to the passcode, where the input ends.
        let result = try await Self.shipped(directory).run(
            ["--data-dir", data.path, "--bcrypt-cost", "4"],
            lines: Array(DeviceAppEndToEndTests.aliceOnboards.dropLast(2))
        )
        #expect(result.status == 1, "\(result.output)\(result.standardError)")
        #expect(result.output.contains("Create Passcode"), "\(result.output)")
        #expect(!Self.exists(data, "device/lock"))
        #expect(!Self.exists(data, "server/lock"))
        #expect(Self.exists(data, "server/gangway-server.sqlite"), "what the launch made besides its locks stays")
    }

    @Test("a second app on a running app's directory fails, and the running app's lock stays")
    func aRunningAppsLockStays() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-failed")
        defer { directory.remove() }
        let runner = Self.shipped(directory)
        let data = directory.appending("data")
        let running = try runner.launch(
            ["--data-dir", data.path, "--bcrypt-cost", "4"],
            lines: [],
            keepInputOpen: true
        )
        defer {
            running.terminate()
            running.waitUntilExit()
        }
        let lock = data.appendingPathComponent("device/lock")
        let holder = "process \(running.processIdentifier) (gangway, the device app)"
        func lockText() -> String { (try? String(contentsOf: lock, encoding: .utf8)) ?? "" }
        for _ in 0..<300 where !lockText().contains(holder) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(lockText().contains(holder))

        for arguments in [["--bcrypt-cost", "4"], ["--server", Self.unreachable]] {
            let second = try await runner.run(["--data-dir", data.path] + arguments, lines: ["quit"])
            #expect(second.status == 1, "\(arguments)")
            #expect(second.standardError.contains("is in use by \(holder)"), "\(second.standardError)")
            #expect(lockText().contains(holder), "\(arguments): the running app's lock is as it was")
        }
        #expect(running.isRunning)
    }
}

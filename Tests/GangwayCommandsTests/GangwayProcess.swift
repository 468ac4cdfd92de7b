import Foundation
import GangwaySystem
import GangwayTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `gangway` commands, as a user or a script would: the test host (the
/// same commands, with the test hooks a test sets in the environment) or the shipped
/// `gangway` binary.
struct GangwayProcess {
    struct Result {
        let status: Int32
        let standardOutput: Data
        let standardError: String

        var output: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// The test host, which reads `GANGWAY_KDF_ROUNDS`, `GANGWAY_TEST_CRASH_AT` and
    /// `GANGWAY_TEST_UPLOAD_BATCH`.
    static let executable = builtProduct("gangway-test-host")
    /// The shipped binary, which reads none of them.
    static let shippedExecutable = builtProduct("gangway")
    /// `gangway-benchmark`, as `swift build` makes it.
    static let benchmarkExecutable = builtProduct("gangway-benchmark")

    /// A binary next to the test bundle in the build products directory.
    static func builtProduct(_ name: String) -> URL {
        var candidates: [URL] = []
        if let main = Bundle.main.executableURL { candidates.append(main.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            var url = directory
            for _ in 0..<4 {
                let binary = url.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
                url.deleteLastPathComponent()
            }
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/\(name)")
    }

    let deviceKeys: URL
    var environment: [String: String] = [:]
    /// Which binary runs.
    var executable = GangwayProcess.executable

    init(deviceKeys: URL) {
        self.deviceKeys = deviceKeys
    }

    /// A process for `arguments`, not yet started.
    private func process(
        _ arguments: [String],
        extraEnvironment: [String: String],
        in workingDirectory: URL? = nil
    ) -> Process {
        let process = Process()
        process.executableURL = executable
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        variables["GANGWAY_DEVICE_KEYS"] = deviceKeys.path
        variables["GANGWAY_KDF_ROUNDS"] = "1000"
        // The stories read English texts, whatever the machine's locale; a story in another
        // language sets its own.
        variables["LC_ALL"] = "C.UTF-8"
        variables.merge(environment) { $1 }
        variables.merge(extraEnvironment) { $1 }
        process.environment = variables
        return process
    }

    /// Starts `gangway` with `arguments` and `lines` on standard input, without waiting
    /// for it: the test watches it and may kill it. Its output is discarded.
    /// - Parameter keepInputOpen: Leaves standard input open after `lines`, so the app
    ///   waits at its next prompt until it is stopped.
    func launch(
        _ arguments: [String],
        lines: [String],
        extraEnvironment: [String: String] = [:],
        keepInputOpen: Bool = false
    ) throws -> Process {
        let process = process(arguments, extraEnvironment: extraEnvironment)
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.start()
        stdin.fileHandleForWriting.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        if keepInputOpen {
            Self.openInputs.withLock { $0.append(stdin) }
        } else {
            try stdin.fileHandleForWriting.close()
        }
        return process
    }

    /// Makes the device app's embedded server in `dataDirectory` as a first launch does
    /// (a look at the demo, then quit), unless it is there: `gangway admin` manages a
    /// server and never creates one.
    func makeEmbeddedServer(in dataDirectory: URL) async throws {
        let database = dataDirectory.appendingPathComponent("server/gangway-server.sqlite")
        guard !FileManager.default.fileExists(atPath: database.path) else { return }
        let launched = try await run(["--data-dir", dataDirectory.path, "--bcrypt-cost", "4"], lines: ["4", "2"])
        #expect(launched.status == 0, "\(launched.output)\(launched.standardError)")
    }

    /// A started `gangway` whose standard input stays open and whose output the test reads.
    struct Running {
        let process: Process
        let input: Pipe
        let output: Pipe
        let errors: Pipe
    }

    /// Starts `gangway` with `arguments`, standard input open and empty, output captured.
    func launchCapturing(_ arguments: [String]) throws -> Running {
        let process = process(arguments, extraEnvironment: [:])
        let running = Running(process: process, input: Pipe(), output: Pipe(), errors: Pipe())
        process.standardInput = running.input
        process.standardOutput = running.output
        process.standardError = running.errors
        try process.start()
        return running
    }

    /// The inputs of processes launched with their input kept open: closed when the test
    /// process ends.
    private static let openInputs = Mutex<[Pipe]>([])

    /// Runs `gangway` with `arguments`, feeding `input` on standard input, on a thread of
    /// its own (``onOwnThread(_:)``): while it runs, no thread the other tests' tasks share
    /// is held, however many tests run programs at once.
    /// - Parameters:
    ///   - workingDirectory: Where it runs; this process's own directory if `nil`.
    ///   - takingTurns: Whether it waits for a turn (``turns``) first; `false` for a run
    ///     that must happen while another program of the test still runs.
    func run(
        _ arguments: [String],
        input: Data = Data(),
        extraEnvironment: [String: String] = [:],
        in workingDirectory: URL? = nil,
        takingTurns: Bool = true
    ) async throws -> Result {
        let run = {
            try await onOwnThread {
                try self.runBlocking(arguments, input: input, extraEnvironment: extraEnvironment, in: workingDirectory)
            }
        }
        return takingTurns ? try await Self.turns.inside(run) : try await run()
    }

    /// The programs these tests run at once: as many as the tests ran when each held a
    /// shared thread while its program ran, now without holding one.
    private static let turns = Gate(width: 2)

    private func runBlocking(
        _ arguments: [String],
        input: Data,
        extraEnvironment: [String: String],
        in workingDirectory: URL?
    ) throws -> Result {
        let process = process(arguments, extraEnvironment: extraEnvironment, in: workingDirectory)
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.start()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let error = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: output,
            standardError: String(decoding: error, as: UTF8.self)
        )
    }

    func run(_ arguments: [String], lines: [String], extraEnvironment: [String: String] = [:]) async throws -> Result {
        try await run(arguments, input: Data(lines.map { $0 + "\n" }.joined().utf8), extraEnvironment: extraEnvironment)
    }
}

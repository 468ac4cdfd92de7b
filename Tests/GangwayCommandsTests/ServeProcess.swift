import Foundation
import GangwaySystem
import GangwayTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `gangway serve` as a process of its own on a free loopback port, with its data in
/// `directory`: started, its address read once it has printed where its console is, and
/// stopped by ``stop()``.
///
/// What waits for the process to print, or to end and close its log, waits on a thread
/// of its own (``GangwayTesting/onOwnThread(_:)``), never on one the tests' tasks share: a
/// server that waits for something of this process's (a lock its in-process server
/// holds) would otherwise wait for a thread it holds itself.
final class ServeProcess {
    let process = Process()
    /// The server's address, as it wrote it to its URL file.
    let url: String
    /// The admin token's file, for `gangway admin --server URL --token-file`.
    let tokenFile: String
    /// All it printed up to its console's address and the line that says it listens.
    let printed: String

    private let errors = Pipe()

    /// - Parameters:
    ///   - port: The port to listen on; a free one when 0.
    ///   - environment: Variables set for the server, beside this process's.
    init(
        _ extra: [String] = [],
        port: Int = 0,
        in directory: URL,
        environment: [String: String] = [:]
    ) async throws {
        process.executableURL = GangwayProcess.executable
        process.arguments =
            ["serve", "--port", "\(port)", "--data-dir", directory.path, "--bcrypt-cost", "4"] + extra
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.start()
        let reading = output.fileHandleForReading
        self.printed = try await onOwnThread {
            var printed = ""
            // Both lines: with the console on an address of its own, it may say so first.
            while !printed.contains("Console: ") || !printed.contains("listening on") {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                printed += String(decoding: chunk, as: UTF8.self)
            }
            return printed
        }
        do {
            url = try String(contentsOf: directory.appendingPathComponent("url"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            process.terminate()
            process.waitUntilExit()
            throw error
        }
        tokenFile = directory.appendingPathComponent("admin-token").path
    }

    /// Kills the server at once (SIGKILL), as a machine that loses power: nothing it
    /// has not committed is kept. Waits for it to end.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Stops the server and waits for it to end.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Stops the server; what it wrote to standard error (its log).
    func stopAndReadLog() async throws -> String {
        let (process, reading) = (process, errors.fileHandleForReading)
        return try await onOwnThread {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            return String(decoding: reading.readDataToEndOfFile(), as: UTF8.self)
        }
    }
}

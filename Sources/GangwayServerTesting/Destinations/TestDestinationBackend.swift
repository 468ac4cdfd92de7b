import Foundation
import GangwaySystem
import GangwayTesting

#if canImport(Glibc)
    import Glibc
#endif

/// A company backend on loopback for destination tests, not Gangway's code:
/// `Tests/Fixtures/destination/backend.py`, which checks each forwarded person's token
/// with PyJWT (pinned in `Tests/Fixtures/oidc/requirements.txt`) against a Gangway
/// server's published keys, and answers who it sees. It runs in the same virtual
/// environment as ``TestIdentityProvider``, which `.ci/run` makes.
public struct TestDestinationBackend: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The backend's base URL, which is also the audience it accepts.
    public let url: String
    private let process: Process
    /// Kept open while the backend runs: it ends when this closes.
    private let input: Pipe

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/destination/backend.py")

    /// Whether the backend can run here.
    public static var isInstalled: Bool { TestIdentityProvider.python != nil }

    /// Runs `body` with a backend that trusts tokens of `issuer` signed by the keys at
    /// `jwks`, ended however `body` ends.
    public static func using<Result: Sendable>(
        jwks: String,
        issuer: String,
        _ body: (TestDestinationBackend) async throws -> Result
    ) async throws -> Result {
        guard let python = TestIdentityProvider.python else {
            throw Failure(description: "no Python with PyJWT; run .ci/run")
        }
        let ready = FileManager.default.temporaryDirectory
            .appendingPathComponent("gangway-backend-\(UUID().uuidString)").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, "--jwks", jwks, "--issuer", issuer, "--ready-file", ready]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.start()
        var backend: TestDestinationBackend?
        for _ in 0..<300 {
            if let text = try? String(contentsOfFile: ready, encoding: .utf8),
                let url = text.split(separator: "\n").first
            {
                try? FileManager.default.removeItem(atPath: ready)
                backend = TestDestinationBackend(url: String(url), process: process, input: input)
                break
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard let backend else {
            kill(process.processIdentifier, SIGKILL)
            throw Failure(description: "the destination backend did not start")
        }
        do {
            let result = try await body(backend)
            await backend.stop()
            return result
        } catch {
            await backend.stop()
            throw error
        }
    }

    private func stop() async {
        try? input.fileHandleForWriting.close()
        kill(process.processIdentifier, SIGTERM)
        // Waited for on a thread of its own, killed after two seconds: never a loop of
        // sleeps, which a cancelled task runs without pause.
        try? await process.exit(within: .seconds(2))
    }
}

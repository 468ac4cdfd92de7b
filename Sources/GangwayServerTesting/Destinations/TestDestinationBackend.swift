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
    ///
    /// - Parameter jwksLifespan: How many seconds its JWKS client keeps the key set;
    ///   PyJWT's default (300) when `nil`.
    public static func using<Result: Sendable>(
        jwks: String,
        issuer: String,
        jwksLifespan: Int? = nil,
        _ body: (TestDestinationBackend) async throws -> Result
    ) async throws -> Result {
        let (url, process, input) = try await launch(
            script: script,
            arguments: ["--jwks", jwks, "--issuer", issuer]
                + (jwksLifespan.map { ["--jwks-lifespan", "\($0)"] } ?? []),
            what: "the destination backend"
        )
        let backend = TestDestinationBackend(url: url, process: process, input: input)
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
        await Self.stop(process, input)
    }

    /// Starts a Python script of the tests' fixtures with `arguments` and
    /// `--ready-file`, and waits for the first line it writes there: its URL. It ends when
    /// the returned pipe closes.
    static func launch(
        script: URL,
        arguments: [String],
        what: String
    ) async throws -> (url: String, process: Process, input: Pipe) {
        guard let python = TestIdentityProvider.python else {
            throw Failure(description: "no Python with PyJWT; run .ci/run")
        }
        let ready = FixtureStart.readyPath("gangway-backend")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path] + arguments + ["--ready-file", ready]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard let url = try await FixtureStart.firstLine(of: process, ready: ready) else {
            throw Failure(description: "\(what) did not start")
        }
        return (url, process, input)
    }

    /// Ends a script ``launch(script:arguments:what:)`` started.
    static func stop(_ process: Process, _ input: Pipe) async {
        try? input.fileHandleForWriting.close()
        kill(process.processIdentifier, SIGTERM)
        // Waited for on a thread of its own, killed after two seconds: never a loop of
        // sleeps, which a cancelled task runs without pause.
        try? await process.exit(within: .seconds(2))
    }
}

import Foundation
import GangwayPolicy
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import Logging

/// The server a benchmark measures: a real one, SQLite in a fresh temporary directory,
/// seeded and served on a loopback port while the benchmark runs, then stopped and
/// removed. Built from GangwayServer's own parts, so `gangway-benchmark` links no test
/// support.
struct BenchmarkServer {
    /// The server while it serves.
    struct Running: Sendable {
        let server: MobileServicesServer
        let url: URL
    }

    /// The app every benchmark uses, and its user.
    static let appID = "checks"
    static let username = "alice"
    static let password: Secret = "alice-password"

    static func app(settings: Components.Schemas.AppSettingsUpdate? = nil) -> SeedApp {
        SeedApp(id: appID, name: "Ground checks", emailDomains: ["airline.example"], settings: settings)
    }

    static var user: SeedUser { SeedUser(username, password: password, displayName: "Alice") }

    /// Serves a server with ``app()`` and ``user``, logging errors only and with a cheap
    /// bcrypt cost, while `body` runs; `body` is given the logger too.
    static func runQuietly(_ body: (Running, Logger) async throws -> Void) async throws {
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let seed = ServerSeed(apps: [app()], users: [user])
        try await run(seed: seed, bcryptCost: 4, logger: logger) { server in try await body(server, logger) }
    }

    /// Serves a server seeded with `seed` while `body` runs.
    static func run<Result: Sendable>(
        seed: ServerSeed,
        bcryptCost: UInt8,
        logger: Logger,
        now: @escaping @Sendable () -> Date = WallClock.now,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        tracer: ServerTracer = .none,
        _ body: (Running) async throws -> Result
    ) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("gangway-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory)
        configuration.bcryptCost = bcryptCost
        configure(&configuration)
        let server = try await MobileServicesServer(
            configuration: configuration,
            logger: logger,
            now: now,
            tracer: tracer
        )
        try await server.seed(seed)
        let host = ServerHost(server: server, logger: logger)
        return try await host.serving { _ in try await body(Running(server: server, url: try await host.url())) }
    }
}

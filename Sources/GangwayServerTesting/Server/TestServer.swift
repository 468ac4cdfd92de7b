import Foundation
import GangwayServer
import HummingbirdTesting
import Logging

/// A mobile-services server for tests, demos and benchmarks: its own database (SQLite in
/// a temporary directory, or a fresh PostgreSQL schema), served on a free loopback port
/// by the real ``GangwayServer/ServerHost`` while a closure runs.
///
/// ```swift
/// try await TestServer.run(seed: .checks) { server in
///     let apps = try await server.admin(.get, "/admin/apps")
///     #expect(apps.status == .ok)
/// }
/// ```
///
/// Making the server (`init`) and serving it (``run(seed:_:)``) are apart, so a test can
/// look at the server, or restart it over the same database, before or between runs.
public struct TestServer: Sendable {
    /// The server: its configuration, storage and activation key.
    public let server: MobileServicesServer
    /// The admin token, for the `Authorization: Bearer` header of admin calls.
    public let adminToken: String
    /// The server's data directory (the SQLite file and the admin-token file).
    public let directory: URL
    /// How the server was made.
    public let options: Options
    /// The PostgreSQL schema this server was made with, which ``remove()`` drops.
    private let schema: String?

    /// Makes a new server: a temporary directory, a new database, an admin token and an
    /// activation key. Nothing listens before ``run(seed:_:)``.
    ///
    /// The directory is removed when the test process exits, and the PostgreSQL schema by
    /// ``remove()`` (as ``run(seed:options:_:)`` does); what a killed test process left is
    /// removed by the next one (`TestLeftovers`).
    public init(options: Options = Options()) async throws {
        try TestLeftovers.prepareDirectory()
        let directory = TestLeftovers.directory.appendingPathComponent("server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let postgres = options.database.freshPostgresSchema()
        if case .postgresql(let url) = options.database {
            await TestLeftovers.prepareSchemas(url: url)
        }
        var configuration = ServerConfiguration(
            host: "127.0.0.1",
            port: 0,
            dataDirectory: directory,
            postgresURL: postgres?.url,
            bcryptCost: options.bcryptCost,
            allowedSignInFailures: options.allowedSignInFailures,
            cacheLifetime: options.cacheLifetime
        )
        // A test process running hundreds of tests on a shared machine can leave a
        // connection quiet for longer than a production server would wait; a test that
        // checks the timeouts sets its own.
        configuration.requestHeadTimeout = .seconds(120)
        configuration.requestBodyTimeout = .seconds(300)
        configuration.idleTimeout = .seconds(600)
        options.configure(&configuration)
        let server = try await MobileServicesServer(
            configuration: configuration,
            logger: options.logger,
            now: options.now,
            tracer: options.tracer
        )
        let token = try String(contentsOf: configuration.adminTokenPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        self.init(server: server, adminToken: token, options: options, schema: postgres?.schema)
    }

    /// Serves an existing server, such as a second process over another's database, or
    /// one restarted with a new admin token.
    public init(server: MobileServicesServer, adminToken: String, options: Options = Options()) {
        self.init(server: server, adminToken: adminToken, options: options, schema: nil)
    }

    private init(server: MobileServicesServer, adminToken: String, options: Options, schema: String?) {
        self.server = server
        self.adminToken = adminToken
        self.directory = server.configuration.dataDirectory
        self.options = options
        self.schema = schema
    }

    /// How a test's requests reach the server.
    public enum Transport: Sendable {
        /// Over a keep-alive connection to the server listening on a free loopback port:
        /// the whole server, its connection limits and timeouts, the peer's address.
        case loopback
        /// Straight to the server's router (HummingbirdTesting's router mode), with no
        /// socket: the same middleware, routes and handlers, but no connection handling,
        /// no peer address (the audit records none) and no port (``RunningTestServer/url``
        /// has port 0). For a server on SQLite: nothing runs the services PostgreSQL's
        /// pool needs.
        case router
    }

    /// Seeds the server, serves it while `body` runs (on its loopback port, or to its
    /// router alone), then stops it, waiting for the requests in flight, whether `body`
    /// returned or threw.
    ///
    /// At most eight servers serve at once in one process; a run waits its turn, and a
    /// run inside another uses its caller's turn.
    ///
    /// A server made with `port: 0` takes a free port at each run.
    public func run<Result: Sendable>(
        seed: ServerSeed = .empty,
        over transport: Transport = .loopback,
        _ body: (RunningTestServer) async throws -> Result
    ) async throws -> Result {
        try await ServingSlots.withSlot {
            try await server.seed(seed)
            if transport == .router {
                return try await routed(body)
            }
            let host = ServerHost(server: server, logger: options.logger)
            return try await host.serving { port in
                try await LoopbackClient.with(host: "127.0.0.1", port: port) { client in
                    try await body(
                        RunningTestServer(
                            server: server,
                            url: try await host.url(),
                            adminToken: adminToken,
                            pinnedActivationKeyPEM: try await server.activationPublicKeyPEM(),
                            client: .loopback(client)
                        )
                    )
                }
            }
        }
    }

    /// Runs `body` with HummingbirdTesting's client of the server's router. Its test
    /// closure is `@Sendable` and `body` need not be: the closure hands its client over
    /// and waits while `body` runs here.
    private func routed<Result: Sendable>(_ body: (RunningTestServer) async throws -> Result) async throws -> Result {
        guard options.database == .sqlite else {
            throw TestServerError("a server on PostgreSQL is served over loopback: its pool runs as a service")
        }
        let application = try server.application()
        let (clients, handOver) = AsyncStream<any TestClientProtocol>.makeStream()
        let (finished, finish) = AsyncStream<Void>.makeStream()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await application.test(.router) { client in
                    handOver.yield(client)
                    handOver.finish()
                    for await _ in finished {}
                }
            }
            defer { finish.finish() }
            var handed = clients.makeAsyncIterator()
            guard let client = await handed.next() else {
                try await group.waitForAll()
                throw TestServerError("the router's test client did not start")
            }
            let running = RunningTestServer(
                server: server,
                url: server.configuration.localURL(boundPort: 0) ?? URL(string: "http://127.0.0.1:0")!,
                adminToken: adminToken,
                pinnedActivationKeyPEM: try await server.activationPublicKeyPEM(),
                client: .router(client)
            )
            let outcome: Swift.Result<Result, any Error>
            do {
                outcome = .success(try await body(running))
            } catch {
                outcome = .failure(error)
            }
            finish.finish()
            try await group.waitForAll()
            return try outcome.get()
        }
    }

    /// Makes a server with `options`, seeds it and serves it while `body` runs, then
    /// stops it and removes its directory and database.
    ///
    /// The server is made inside its serving turn, not before: a hundred tests starting
    /// at once would otherwise each open a database and wait for a turn with it open,
    /// which once held a test process at a thousand open files.
    public static func run<Result: Sendable>(
        seed: ServerSeed = .empty,
        options: Options = Options(),
        over transport: Transport = .loopback,
        _ body: (RunningTestServer) async throws -> Result
    ) async throws -> Result {
        try await ServingSlots.withSlot {
            let server = try await TestServer(options: options)
            do {
                let result = try await server.run(seed: seed, over: transport, body)
                await server.remove()
                return result
            } catch {
                await server.remove()
                throw error
            }
        }
    }

    /// Runs `body` while holding one of the process's serving turns, as ``run(seed:_:)``
    /// does: for a test that makes its servers before it runs them, so that making them
    /// waits its turn too. A run inside `body` uses this turn. One that comes `first`
    /// waits only behind others that came first.
    public static func withServingTurn<Result>(
        first: Bool = false,
        _ body: () async throws -> Result
    ) async throws -> Result {
        try await ServingSlots.withSlot(first: first, body)
    }

    /// Removes the server's data directory (its SQLite database and admin-token file).
    public func removeDirectory() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Removes the server's data directory and drops the PostgreSQL schema it was made
    /// with, if any. Call it once no server serves the database.
    public func remove() async {
        removeDirectory()
        if let schema, case .postgresql(let url) = options.database {
            await TestLeftovers.drop(schema: schema, url: url)
        }
    }
}

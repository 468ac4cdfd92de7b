import Foundation
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting

/// What a server test controls around a ``TestServer``: a manual clock and the captured
/// logs, with bcrypt at its lowest cost. On SQLite its requests go straight to the
/// server's router (HummingbirdTesting's router mode, no socket); a suite that needs a
/// connection (a peer's address, a port, timeouts, parallel clients, a browser) says
/// `over: .loopback`, and PostgreSQL is always served over loopback.
struct ServerFixture: Sendable {
    let testServer: TestServer
    let clock: ManualWallClock
    let logs: LogCapture
    /// How the tests' requests reach the server: straight to its router on SQLite, where
    /// no socket is needed, unless a test asks for the loopback connection.
    let transport: TestServer.Transport

    static let appID = "checks"
    static let domain = "airline.example"

    init(
        over transport: TestServer.Transport? = nil,
        backend: Backend = .sqlite,
        allowedSignInFailures: Int = 5,
        bcryptCost: UInt8 = 4,
        tracer: ServerTracer = .none,
        configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in }
    ) async throws {
        let clock = ManualWallClock(Date())
        let logs = LogCapture()
        testServer = try await TestServer(
            options: .init(
                database: try backend.database,
                bcryptCost: bcryptCost,
                allowedSignInFailures: allowedSignInFailures,
                logger: logs.logger,
                now: clock.now,
                configure: configure,
                tracer: tracer
            )
        )
        self.clock = clock
        self.logs = logs
        self.transport = transport ?? (backend == .sqlite ? .router : .loopback)
    }

    var server: MobileServicesServer { testServer.server }
    var adminToken: String { testServer.adminToken }

    /// Runs `body` against the server, over ``transport``.
    func run(_ body: (API) async throws -> Void) async throws {
        try await testServer.run(over: transport) { running in try await body(API(running: running, fixture: self)) }
    }

    /// Runs `body` with the standard app ("checks", domain airline.example) and the
    /// users alice and bob (passwords alice-password and bob-password) created.
    func runSeeded(_ body: (API) async throws -> Void) async throws {
        try await testServer.run(seed: .checks, over: transport) { running in
            try await body(API(running: running, fixture: self))
        }
    }
}

import Foundation
import GangwayServer
import GangwayServerTesting
import GangwayTesting

/// What a server test controls around a ``TestServer``: a manual clock and the captured
/// logs, with bcrypt at its lowest cost.
struct ServerFixture: Sendable {
    let testServer: TestServer
    let clock: ManualWallClock
    let logs: LogCapture

    static let appID = "checks"
    static let domain = "airline.example"

    init(
        backend: Backend = .sqlite,
        allowedSignInFailures: Int = 5,
        bcryptCost: UInt8 = 4,
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
                configure: configure
            )
        )
        self.clock = clock
        self.logs = logs
    }

    var server: MobileServicesServer { testServer.server }
    var adminToken: String { testServer.adminToken }

    /// Runs `body` against the server listening on loopback.
    func run(_ body: (API) async throws -> Void) async throws {
        try await testServer.run { running in try await body(API(running: running, fixture: self)) }
    }

    /// Runs `body` with the standard app ("checks", domain airline.example) and the
    /// users alice and bob (passwords alice-password and bob-password) created.
    func runSeeded(_ body: (API) async throws -> Void) async throws {
        try await testServer.run(seed: .checks) { running in try await body(API(running: running, fixture: self)) }
    }
}

import Foundation
import GangwayServer
import GangwayServices
import Logging
import ServiceLifecycle

/// The server `gangway` runs in-process when no `--server` is given: SQLite under the
/// data directory, on a free loopback port, seeded at first start with the demo app and
/// two demo users.
struct DemoServer: Sendable {
    /// The demo app: aircraft ground checks at an airline.
    static let appID = "checks"
    static let appName = "Aircraft Ground Checks"
    static let emailDomain = "airline.example"
    /// The demo users and their passwords, printed for the person trying the app. They
    /// sign in only to this loopback server.
    static let users: [(username: String, displayName: String, password: String)] = [
        ("alice", "Alice Martin", "preflight-alice"),
        ("bob", "Bob Okafor", "preflight-bob"),
    ]

    let server: MobileServicesServer
    let directory: URL
    let logger: Logger

    /// Opens (or creates) the server's database under `directory`.
    init(directory: URL, bcryptCost: UInt8, logger: Logger) async throws {
        self.directory = directory
        self.logger = logger
        server = try await MobileServicesServer(
            configuration: ServerConfiguration(
                host: "127.0.0.1",
                port: 0,
                dataDirectory: directory,
                bcryptCost: bcryptCost
            ),
            logger: logger
        )
    }

    /// The key activation payloads are signed with, for the device to pin.
    var activationKeyPEM: String { server.activationPublicKeyPEM }

    /// The server while it serves.
    struct Running: Sendable {
        /// Where it listens.
        let url: URL
        let services: ServiceGroup

        /// Finishes the requests in flight and stops.
        func stop() async { await services.triggerGracefulShutdown() }
    }

    /// Starts serving in a child task of `group`; returns once it listens. The URL is
    /// also written to `url` in the server's directory, for `gangway admin`.
    func start(in group: inout ThrowingTaskGroup<Void, any Error>) async throws -> Running {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try server.application { port in continuation.yield(port) }
        // No signal handling: the app, not a signal, decides when the server stops.
        let services = ServiceGroup(services: [application], gracefulShutdownSignals: [], logger: logger)
        group.addTask { try await services.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw DemoServerError.notListening }
        let url = URL(string: "http://127.0.0.1:\(port)")!
        try Data((url.absoluteString + "\n").utf8).write(to: directory.appendingPathComponent("url"), options: .atomic)
        return Running(url: url, services: services)
    }

    /// Creates the demo app and users unless an earlier start did.
    func seed(at url: URL) async throws {
        let token = try String(contentsOf: server.configuration.adminTokenPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let admin = AdminClient(serverURL: url, adminToken: token)
        do throws(ServiceError) {
            try await admin.createApp(id: Self.appID, name: Self.appName, emailDomains: [Self.emailDomain])
        } catch {
            guard error.status == 409 else { throw error }
            return  // seeded at an earlier start
        }
        for user in Self.users {
            try await admin.createUser(user.username, password: user.password, displayName: user.displayName)
        }
    }
}

enum DemoServerError: Error, CustomStringConvertible {
    case notListening

    var description: String { "the embedded server did not start listening" }
}

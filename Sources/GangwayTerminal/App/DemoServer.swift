import Foundation
import GangwayPolicy
import GangwayServer
import GangwayServices
import Logging
import ServiceLifecycle

/// The server `gangway` runs in-process when no `--server` is given: SQLite under the
/// data directory, on a loopback port, seeded at first start with the demo app, two
/// demo users and the app's aircraft checks.
///
/// The port is chosen free at first start and kept (in `port`), so the server's URL,
/// and the activation links and QR codes that carry it, stay the same from one start to
/// the next; when another program holds it, a new free port is taken and kept.
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

    /// The demo app's aircraft checks (entity set `checks`), put on the server at first
    /// start; see ``ChecksText`` for the fields.
    static let checks: [(id: String, fields: [String: String])] = [
        (
            "F-GKXA-fuel",
            ["aircraft": "A320 F-GKXA", "stand": "12", "item": "fuel level", "status": "done", "reading": "8200 kg"]
        ),
        ("F-GKXA-tyres", ["aircraft": "A320 F-GKXA", "stand": "12", "item": "tyre pressure", "status": "open"]),
        ("F-GKXA-walkaround", ["aircraft": "A320 F-GKXA", "stand": "12", "item": "walk-around", "status": "open"]),
        ("F-GTAJ-fuel", ["aircraft": "A321 F-GTAJ", "stand": "14", "item": "fuel level", "status": "open"]),
        (
            "F-GTAJ-tyres",
            [
                "aircraft": "A321 F-GTAJ", "stand": "14", "item": "tyre pressure", "status": "done",
                "reading": "14.2 bar",
            ]
        ),
    ]

    /// The same checks, for demo mode, which has no server.
    static var sampleChecks: [AppEntity] {
        checks.map { AppEntity(id: $0.id, fields: $0.fields, version: 1, updatedAt: Date(), updatedBy: "sample") }
    }

    let server: MobileServicesServer
    let directory: URL
    let logger: Logger
    /// Whether the demo app and users belong here: the database is new, or an earlier
    /// start seeded it. A database another server made (`gangway serve`) is never seeded:
    /// demo users with printed passwords have no place in it.
    let isDemo: Bool

    /// Opens (or creates) the server's database under `directory`.
    init(directory: URL, bcryptCost: UInt8, logger: Logger) async throws {
        self.directory = directory
        self.logger = logger
        let kept = (try? String(contentsOf: directory.appendingPathComponent("port"), encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let configuration = ServerConfiguration(
            host: "127.0.0.1",
            port: kept.flatMap { LoopbackPort.isFree($0) ? $0 : nil } ?? 0,
            dataDirectory: directory,
            bcryptCost: bcryptCost
        )
        let files = FileManager.default
        isDemo =
            !files.fileExists(atPath: configuration.sqlitePath.path)
            || files.fileExists(atPath: directory.appendingPathComponent(Self.demoMarker).path)
        server = try await MobileServicesServer(configuration: configuration, logger: logger)
    }

    /// The file that marks a database as the demo's.
    static let demoMarker = "demo"

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

    /// Serves (seeded) while `body` runs, then finishes the requests in flight and stops,
    /// whether `body` returned or threw.
    func serving<Result: Sendable>(_ body: (Running) async throws -> Result) async throws -> Result {
        let outcome: Swift.Result<Result, any Error> = try await withThrowingTaskGroup(of: Void.self) { group in
            let running = try await start(in: &group)
            let outcome: Swift.Result<Result, any Error>
            do {
                try await seed(at: running.url)
                outcome = .success(try await body(running))
            } catch {
                outcome = .failure(error)
            }
            await running.stop()
            try await group.waitForAll()
            return outcome
        }
        return try outcome.get()
    }

    /// Starts serving in a child task of `group`; returns once it listens. The URL is
    /// also written to `url` in the server's directory, for `gangway admin`.
    func start(in group: inout ThrowingTaskGroup<Void, any Error>) async throws -> Running {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try server.application { port in continuation.yield(port) }
        // No signal handling: the app, not a signal, decides when the server stops.
        let services = ServiceGroup(services: [application], gracefulShutdownSignals: [], logger: logger)
        group.addTask {
            // A server that fails to start ends the wait for its port.
            defer { continuation.finish() }
            try await services.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw DemoServerError.notListening }
        let url = URL(string: "http://127.0.0.1:\(port)")!
        try Data("\(port)\n".utf8).write(to: directory.appendingPathComponent("port"), options: .atomic)
        try Data((url.absoluteString + "\n").utf8).write(to: directory.appendingPathComponent("url"), options: .atomic)
        return Running(url: url, services: services)
    }

    /// Creates the demo app and users unless an earlier start did, in the demo's own
    /// database only (see ``isDemo``).
    func seed(at url: URL) async throws {
        guard isDemo else { return }
        try Data("Seeded with the demo app and users by gangway.\n".utf8)
            .write(to: directory.appendingPathComponent(Self.demoMarker), options: .atomic)
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
            try await admin.createUser(user.username, password: Secret(user.password), displayName: user.displayName)
        }
        for check in Self.checks {
            try await admin.putEntity(check.id, fields: check.fields, app: Self.appID, entitySet: ChecksText.entitySet)
        }
    }
}

enum DemoServerError: Error, CustomStringConvertible {
    case notListening

    var description: String { "the embedded server did not start listening" }
}

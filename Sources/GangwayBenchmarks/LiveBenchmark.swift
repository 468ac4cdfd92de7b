import ArgumentParser
import AsyncHTTPClient
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServices
import GangwaySystem
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// `gangway-benchmark live`: devices waiting for live updates (a sync's `wait`), spread
/// over several `gangway serve` processes sharing one PostgreSQL database, while a
/// writer (a server in this process, as an admin's or another device's write would be)
/// changes the set they follow. Each write is timed to each device's answer; the
/// baseline, in the same run, is every device asking at once right after a write, with
/// no wait (what a poll at that instant would cost). The server processes' resident
/// memory is read from `/proc` before the devices connect and while they all wait.
struct LiveBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Benchmark live updates to devices waiting on several server processes; prints name: value lines.",
        discussion: """
            Needs the gangway binary of the same build beside gangway-benchmark \
            (scripts/benchmark builds both) and a PostgreSQL database.
            """
    )

    @Option(help: "Devices waiting at once, spread evenly over the processes (1 to 10000).")
    var devices = 1_000

    @Option(help: "gangway serve processes the devices wait on (1 to 8).")
    var processes = 2

    @Option(help: "Writes timed, one at a time, each to every device (1 to 100).")
    var writes = 10

    @Option(
        help: """
            The PostgreSQL database the server processes share (postgres://user:password@host/db, \
            no schema): the benchmark makes a schema of its own there and drops it at the end.
            """
    )
    var postgres: String

    func validate() throws {
        guard (1...10_000).contains(devices), (1...8).contains(processes), (1...100).contains(writes) else {
            throw ValidationError("give --devices 1 to 10000, --processes 1 to 8 and --writes 1 to 100")
        }
        try SyncBenchmark.checkPostgres(postgres)
    }

    func run() async throws {
        let serve = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("gangway")
        guard let serve, FileManager.default.isExecutableFile(atPath: serve.path) else {
            throw ValidationError("gangway is not built beside gangway-benchmark: run scripts/benchmark live")
        }
        print("live.config.devices: \(devices)")
        print("live.config.processes: \(processes)")
        print("live.config.writes: \(writes)")
        print("live.config.storage: postgresql")
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let schema = "gangway_benchmark_live_" + UUID().uuidString.prefix(8).lowercased()
        let database = postgres + (postgres.contains("?") ? "&" : "?") + "schema=" + schema
        do {
            try await measure(serve: serve, database: database, logger: logger)
        } catch {
            try? await SyncBenchmark.drop(schema, of: database)
            throw error
        }
        try await SyncBenchmark.drop(schema, of: database)
    }

    private func measure(serve: URL, database: String, logger: Logger) async throws {
        let seed = ServerSeed(apps: [BenchmarkServer.app()], users: [BenchmarkServer.user])
        try await BenchmarkServer.run(
            seed: seed,
            bcryptCost: 4,
            logger: logger,
            configure: { $0.postgresURL = database }
        ) { writer in
            let storage = writer.server.storage
            try await Self.write(storage, id: "live-start")
            let tokens = try await Self.signIn(devices, at: writer.url)
            let servers = try ServeProcesses(
                count: processes,
                executable: serve,
                database: database,
                keyFile: writer.server.configuration.dataDirectory.appendingPathComponent("server-key")
            )
            defer { servers.stop() }
            let urls = try await servers.urls()
            let client = Self.client(connections: devices)
            do {
                try await follow(client: client, urls: urls, tokens: tokens, storage: storage, servers: servers)
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    /// Times the writes to the devices following the set on `urls`, and reports.
    private func follow(
        client: HTTPClient,
        urls: [URL],
        tokens: [String],
        storage: ServerStorage,
        servers: ServeProcesses
    ) async throws {
        do {
            let followers = (0..<devices).map { index in
                Follower(client: client, server: urls[index % urls.count], token: tokens[index])
            }
            // Every device current with the set before the writes begin.
            try await Self.each(followers) { try await $0.catchUp() }
            let residentBefore = servers.residentMegabytes()
            var residentPeak = residentBefore
            var reach: [Double] = []
            var missed = 0
            for round in 0..<writes {
                let id = "live-\(round)"
                let timings = try await withThrowingTaskGroup(of: Double?.self) { group in
                    let progress = Round()
                    for follower in followers {
                        group.addTask {
                            let answer = try await follower.wait(seconds: APILimits.syncWait.upperBound) {
                                progress.asked.add(1, ordering: .relaxed)
                            }
                            guard answer.ids.contains(id), let start = progress.written.withLock({ $0 }) else {
                                return nil
                            }
                            return Measure.milliseconds(answer.at - start)
                        }
                    }
                    // Every device's wait sent, and a moment for the servers to hold them.
                    while progress.asked.load(ordering: .relaxed) < followers.count {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    try await Task.sleep(for: .seconds(1))
                    residentPeak = zip(residentPeak, servers.residentMegabytes()).map { Swift.max($0, $1) }
                    progress.written.withLock { $0 = ContinuousClock.now }
                    try await Self.write(storage, id: id)
                    return try await group.reduce(into: [Double?]()) { $0.append($1) }
                }
                reach += timings.compactMap { $0 }
                missed += timings.count { $0 == nil }
            }
            // The baseline: right after a write, every device asks at once, with no wait.
            let start = ContinuousClock.now
            try await Self.write(storage, id: "live-poll")
            let polled = try await withThrowingTaskGroup(of: Double.self) { group in
                for follower in followers {
                    group.addTask { Measure.milliseconds(try await follower.ask().at - start) }
                }
                return try await group.reduce(into: [Double]()) { $0.append($1) }
            }
            Measure.report("live.reach_p50_ms", Measure.median(reach))
            Measure.report("live.reach_p99_ms", Measure.percentile(reach, 0.99))
            Measure.report("live.reach_max_ms", reach.max() ?? .nan)
            Measure.report("live.missed", Double(missed), digits: 0)
            Measure.report("live.poll_all_p50_ms", Measure.median(polled))
            Measure.report("live.poll_all_p99_ms", Measure.percentile(polled, 0.99))
            Measure.report(
                "live.ratio_reach_p99_to_poll_all_p99",
                Measure.percentile(reach, 0.99) / Measure.percentile(polled, 0.99)
            )
            let growth = zip(residentPeak, residentBefore).map { $0 - $1 }
            Measure.report("live.server_resident_mb", residentBefore.reduce(0, +), digits: 1)
            Measure.report("live.server_resident_growth_mb", growth.reduce(0, +), digits: 1)
            Measure.report(
                "live.server_resident_growth_per_device_kb",
                growth.reduce(0, +) * 1_024 / Double(devices),
                digits: 1
            )
        }
    }

    /// Writes one check through `storage`, as an admin's put would.
    static func write(_ storage: ServerStorage, id: String) async throws {
        let entity = EntityRecord(
            appID: BenchmarkServer.appID,
            entitySet: "checks",
            id: id,
            fields: ["aircraft": "A320 F-GKXA", "stand": "12", "status": "open"],
            updatedAt: WallClock.now(),
            updatedBy: "admin"
        )
        _ = try await storage.putEntity(entity, limit: EntityLimits.entitiesPerSet)
    }

    /// A session for each of `count` devices of the benchmark's user, each registered.
    static func signIn(_ count: Int, at url: URL) async throws -> [String] {
        let client = MobileServicesClient(serverURL: url)
        var tokens: [String] = []
        for index in 0..<count {
            let deviceID = "live-device-\(index)"
            let session = try await client.signIn(
                appID: BenchmarkServer.appID,
                username: BenchmarkServer.username,
                password: BenchmarkServer.password,
                deviceID: deviceID
            )
            _ = try await client.registerDevice(
                appID: BenchmarkServer.appID,
                token: session.token,
                device: DeviceIdentity(deviceID: deviceID, deviceName: "benchmark", appVersion: "1.0.0")
            )
            tokens.append(session.token.value)
        }
        return tokens
    }

    /// An HTTP client with a connection for each device: one HTTP/1 connection carries
    /// one wait at a time, as each device's own does.
    static func client(connections: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: connections
        )
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Runs `body` for each follower, 64 at a time.
    static func each(
        _ followers: [Follower],
        _ body: @escaping @Sendable (Follower) async throws -> Void
    )
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, follower) in followers.enumerated() {
                if index >= 64 { try await group.next() }
                group.addTask { try await body(follower) }
            }
            try await group.waitForAll()
        }
    }
}

extension LiveBenchmark {
    /// One write's round: how many devices have sent their wait, and when the write began.
    final class Round: Sendable {
        let asked = Atomic<Int>(0)
        let written = Mutex<ContinuousClock.Instant?>(nil)
    }

    /// One device following the set: its server, its session and its cursor.
    final class Follower: Sendable {
        struct Answer {
            var ids: [String]
            var at: ContinuousClock.Instant
        }

        /// What the benchmark reads of a sync's answer.
        struct Page: Decodable {
            struct Entity: Decodable { var id: String }
            var entities: [Entity]
            var cursor: String
            var more: Bool
        }

        let client: HTTPClient
        let server: URL
        let token: String
        private let cursor = Mutex<String?>(nil)

        init(client: HTTPClient, server: URL, token: String) {
            self.client = client
            self.server = server
            self.token = token
        }

        /// Syncs to the end of the set.
        func catchUp() async throws {
            while try await ask(more: true) {}
        }

        /// One sync from the cursor with no wait.
        func ask() async throws -> Answer {
            try await send(wait: nil, sent: {})
        }

        /// One sync from the cursor that waits up to `seconds` for a change; `sent` is
        /// called once the request is on its way.
        func wait(seconds: Int, sent: @Sendable () -> Void) async throws -> Answer {
            try await send(wait: seconds, sent: sent)
        }

        private func ask(more: Bool) async throws -> Bool {
            var more = false
            _ = try await send(wait: nil, sent: {}) { more = $0.more }
            return more
        }

        private func send(
            wait: Int?,
            sent: @Sendable () -> Void,
            page: (Page) -> Void = { _ in }
        ) async throws -> Answer {
            var query = "limit=\(APILimits.syncPage.upperBound)"
            if let cursor = cursor.withLock({ $0 }) { query += "&cursor=\(cursor)" }
            if let wait { query += "&wait=\(wait)" }
            var request = HTTPClientRequest(url: server.absoluteString + "/apps/checks/data/checks/changes?" + query)
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            sent()
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 64 << 20)
            let at = ContinuousClock.now
            guard response.status == .ok else {
                throw ValidationError("a sync was answered \(response.status.code): \(String(buffer: body))")
            }
            let changes = try JSONDecoder().decode(Page.self, from: Data(body.readableBytesView))
            cursor.withLock { $0 = changes.cursor }
            page(changes)
            return Answer(ids: changes.entities.map(\.id), at: at)
        }
    }

    /// `gangway serve` processes on the benchmark's database, each in a data directory of
    /// its own under a temporary one, stopped and removed at the end.
    final class ServeProcesses: Sendable {
        private let directory: URL
        private let processes: [Process]

        init(count: Int, executable: URL, database: String, keyFile: URL) throws {
            directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("gangway-benchmark-live-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            let databaseFile = directory.appendingPathComponent("postgres-url")
            try Data(database.utf8).write(to: databaseFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: databaseFile.path)
            var processes: [Process] = []
            for index in 0..<count {
                let process = Process()
                process.executableURL = executable
                process.arguments = [
                    "serve", "--host", "127.0.0.1", "--port", "0",
                    "--data-dir", directory.appendingPathComponent("server-\(index)").path,
                    "--postgres-file", databaseFile.path, "--key-file", keyFile.path,
                    // Every device comes from loopback here, as through a reverse proxy.
                    "--trusted-proxy", "127.0.0.1", "--bcrypt-cost", "4", "--log-level", "error",
                ]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                let log = directory.appendingPathComponent("server-\(index).log")
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                process.standardError = try FileHandle(forWritingTo: log)
                try process.run()
                processes.append(process)
            }
            self.processes = processes
        }

        /// Where each process listens, once it does.
        func urls() async throws -> [URL] {
            var urls: [URL] = []
            for (index, process) in processes.enumerated() {
                let file = directory.appendingPathComponent("server-\(index)/url")
                for _ in 0..<600 where !FileManager.default.fileExists(atPath: file.path) && process.isRunning {
                    try await Task.sleep(for: .milliseconds(100))
                }
                guard let text = try? String(contentsOf: file, encoding: .utf8),
                    let url = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines))
                else {
                    let log = try? String(
                        contentsOf: directory.appendingPathComponent("server-\(index).log"),
                        encoding: .utf8
                    )
                    throw ValidationError("gangway serve did not start: \(log ?? "no log")")
                }
                urls.append(url)
            }
            return urls
        }

        /// Each process's resident memory, in MB.
        func residentMegabytes() -> [Double] {
            processes.map { SyncBenchmark.residentMegabytes(of: "\($0.processIdentifier)") }
        }

        func stop() {
            for process in processes where process.isRunning { process.terminate() }
            for process in processes { process.waitUntilExit() }
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

import ArgumentParser
import Foundation
import GangwayServer
import GangwaySystem
import Hummingbird
import Logging
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `gangway-benchmark server`: two device routes under load, each against a bare
/// Hummingbird route serving the same bytes in the same process and run: the settings
/// exchange (answered ahead of the router) and the app-data read (through the generated
/// router, as every other route); and sign-in latency at the chosen bcrypt cost. The load comes from `wrk` (Debian package `wrk`) in another
/// process, over loopback.
struct ServerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract:
            "Benchmark the settings and app-data routes against bare routes, and sign-in; prints name: value lines."
    )

    @Option(help: "Concurrent connections wrk keeps open.")
    var connections = 50

    @Option(help: "Seconds of load per measurement (after one second of warm-up).")
    var seconds = 10

    @Option(help: "Rounds: bare and settings alternate this many times; the medians are reported.")
    var rounds = 3

    @Option(name: .customLong("bcrypt-cost"), help: "bcrypt cost for the sign-in measurement.")
    var bcryptCost: UInt8 = 12

    @Option(help: "Sign-ins to time.")
    var signIns = 15

    @Option(name: .customLong("cache-ms"), help: "How long the server keeps what it read (its cache lifetime), in ms.")
    var cacheMilliseconds = 1000

    @Flag(help: "Record the operator's metrics (as serve --metrics-port does), to measure what they cost.")
    var metrics = false

    func run() async throws {
        let wrk = try Self.wrk()
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let seed = ServerSeed(apps: [BenchmarkServer.app()], users: [BenchmarkServer.user], entities: Self.checks)
        try await BenchmarkServer.run(
            seed: seed,
            bcryptCost: bcryptCost,
            logger: logger,
            configure: { [metrics] configuration in
                configuration.cacheLifetime = .milliseconds(cacheMilliseconds)
                if metrics { configuration.metricsAddress = .init(host: "127.0.0.1", port: 0) }
            }
        ) { server in
            try await measure(server: server, wrk: wrk, logger: logger)
        }
    }

    /// Measures the seeded server, with a bare route started next to it.
    private func measure(server: BenchmarkServer.Running, wrk: ExternalTool, logger: Logger) async throws {
        let ports = PortBox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            let base = server.url.absoluteString
            let session = try await Self.registerDevice(base: base)
            let settingsURL = "\(base)/apps/checks/settings"
            let body = try await Self.get(settingsURL, token: session)
            let dataURL = "\(base)/apps/checks/data/checks"
            let dataBody = try await Self.get(dataURL, token: session)

            // The baseline: Hummingbird serving the same bytes, no middleware, no database.
            let router = Router()
            router.get("/bare") { _, _ in
                Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: body))
                )
            }
            router.get("/bare-data") { _, _ in
                Response(
                    status: .ok,
                    headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: dataBody))
                )
            }
            let bare = Application(
                router: router,
                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in await ports.set(\.bare, channel.localAddress?.port ?? 0) },
                logger: logger
            )
            group.addTask { try await bare.run() }
            let bareBase = "http://127.0.0.1:\(try await ports.wait(\.bare))"

            print("server.config.connections: \(connections)")
            print("server.config.seconds: \(seconds)")
            print("server.config.bcrypt_cost: \(bcryptCost)")
            print("server.config.storage: sqlite")
            print("server.config.cache_ms: \(cacheMilliseconds)")
            print("server.config.metrics: \(metrics ? "recorded" : "off")")
            print("server.config.body_bytes: \(body.count)")
            print("server.config.data_body_bytes: \(dataBody.count)")
            try await compare("settings", url: settingsURL, bare: "\(bareBase)/bare", token: session, wrk: wrk)
            try await compare("data", url: dataURL, bare: "\(bareBase)/bare-data", token: session, wrk: wrk)

            var signIns: [Double] = []
            for _ in 0..<max(3, self.signIns) {
                let started = ContinuousClock.now
                _ = try await Self.signIn(base: base)
                signIns.append(Measure.milliseconds(ContinuousClock.now - started))
            }
            Measure.report("server.sign_in.median_ms", Measure.median(signIns))
            Measure.report("server.sign_in.max_ms", signIns.max() ?? 0)
            group.cancelAll()
        }
    }

    /// wrk, which loads the routes; refused in one sentence when it is not installed.
    static func wrk() throws -> ExternalTool {
        let wrk = ExternalTool("wrk")
        guard wrk.executable != nil else {
            throw ValidationError("wrk is not installed (Debian: apt-get install wrk)")
        }
        return wrk
    }

    /// Loads `url` and the bare route serving its bytes, alternating, `rounds` times, and
    /// reports the medians and their ratio (`server.NAME.ratio_to_bare`).
    private func compare(_ name: String, url: String, bare: String, token: String, wrk: ExternalTool) async throws {
        var bareRuns: [Load] = []
        var routeRuns: [Load] = []
        for _ in 0..<max(1, rounds) {
            bareRuns.append(
                try await Self.load(wrk: wrk, url: bare, token: nil, connections: connections, seconds: seconds)
            )
            routeRuns.append(
                try await Self.load(wrk: wrk, url: url, token: token, connections: connections, seconds: seconds)
            )
        }
        let bareRPS = Measure.median(bareRuns.map(\.requestsPerSecond))
        let routeRPS = Measure.median(routeRuns.map(\.requestsPerSecond))
        let prefix = name == "settings" ? "server.bare" : "server.bare_\(name)"
        Measure.report("\(prefix).rps", bareRPS, digits: 0)
        Measure.report("\(prefix).p99_ms", Measure.median(bareRuns.map(\.p99Milliseconds)))
        Measure.report("server.\(name).rps", routeRPS, digits: 0)
        Measure.report("server.\(name).p99_ms", Measure.median(routeRuns.map(\.p99Milliseconds)))
        Measure.report("server.\(name).ratio_to_bare", routeRPS / bareRPS)
        Measure.report("server.\(name).non2xx", Double(routeRuns.map(\.errors).reduce(0, +)), digits: 0)
    }

    /// The app data the data route serves: five checks, as the demo app has.
    static let checks: [SeedEntity] = [
        ("F-GKXA-fuel", ["aircraft": "A320 F-GKXA", "stand": "12", "item": "fuel level", "status": "done"]),
        ("F-GKXA-tyres", ["aircraft": "A320 F-GKXA", "stand": "12", "item": "tyre pressure", "status": "open"]),
        ("F-GKXA-walk", ["aircraft": "A320 F-GKXA", "stand": "12", "item": "walk-around", "status": "open"]),
        ("F-GTAJ-fuel", ["aircraft": "A321 F-GTAJ", "stand": "14", "item": "fuel level", "status": "open"]),
        ("F-GTAJ-tyres", ["aircraft": "A321 F-GTAJ", "stand": "14", "item": "tyre pressure", "status": "done"]),
    ].map { SeedEntity(app: "checks", entitySet: "checks", id: $0.0, fields: $0.1) }

    struct Load {
        var requestsPerSecond: Double
        var p99Milliseconds: Double
        var errors: Int
        /// The processor time this process (the server, and wrk's not) spent per request
        /// answered, in microseconds: steadier than the throughput on a shared machine.
        var processorMicroseconds: Double
    }

    /// Runs wrk: a one-second warm-up, then the measurement.
    static func load(
        wrk: ExternalTool,
        url: String,
        token: String?,
        connections: Int,
        seconds: Int
    ) async throws -> Load {
        var arguments = ["-t2", "-c\(connections)", "--latency"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        _ = try await wrk.run(arguments + ["-d1s", url])
        let processorBefore = Measure.processorMilliseconds()
        guard let output = try await wrk.run(arguments + ["-d\(seconds)s", url])?.text else {
            throw ValidationError("wrk is not installed")
        }
        let processor = Measure.processorMilliseconds() - processorBefore
        guard let rps = number(after: "Requests/sec:", in: output),
            let p99Line = output.split(separator: "\n").first(where: {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("99%")
            })
        else { throw ValidationError("cannot read wrk's output:\n\(output)") }
        let p99 = milliseconds(String(p99Line.split(separator: " ", omittingEmptySubsequences: true).last ?? ""))
        let errors = Int(number(after: "Non-2xx or 3xx responses:", in: output) ?? 0)
        // "  283456 requests in 8.10s, 40.00MB read"
        let answered = output.split(separator: "\n").lazy
            .compactMap { line in
                line.contains(" requests in ") ? line.split(separator: " ").first.flatMap { Double($0) } : nil
            }
            .first
        guard let answered, answered > 0 else { throw ValidationError("cannot read wrk's output:\n\(output)") }
        return Load(
            requestsPerSecond: rps,
            p99Milliseconds: p99,
            errors: errors,
            processorMicroseconds: processor * 1_000 / answered
        )
    }

    /// The number after `label` on its line of wrk's output.
    static func number(after label: String, in text: String) -> Double? {
        guard let range = text.range(of: label) else { return nil }
        return Double(text[range.upperBound...].prefix { $0 != "\n" }.trimmingCharacters(in: .whitespaces))
    }

    /// wrk prints latencies as `850.00us`, `4.12ms` or `1.20s`.
    private static func milliseconds(_ text: String) -> Double {
        for (suffix, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(suffix) {
            return (Double(text.dropLast(suffix.count)) ?? .nan) * scale
        }
        return .nan
    }

    // MARK: Sessions over HTTP

    /// Signs alice in and registers the benchmark's device; returns the session token.
    static func registerDevice(base: String) async throws -> String {
        let session = try await signIn(base: base)
        _ = try await send(
            "PUT",
            "\(base)/apps/checks/devices/bench-device",
            token: session,
            body: #"{"deviceName": "bench", "platform": "linux", "appVersion": "1.0.0"}"#
        )
        return session
    }

    static func signIn(base: String) async throws -> String {
        let data = try await send(
            "POST",
            "\(base)/apps/checks/sessions",
            token: nil,
            body: #"{"username": "alice", "password": "alice-password", "deviceID": "bench-device"}"#
        )
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let token = object["token"] as? String
        else { throw ValidationError("sign-in returned no token") }
        return token
    }

    static func get(_ url: String, token: String) async throws -> Data {
        try await send("GET", url, token: token, body: nil)
    }

    static func send(_ method: String, _ url: String, token: String?, body: String?) async throws -> Data {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw ValidationError("\(method) \(url) failed: \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }
}

/// The port the bare server bound, awaited by the benchmark.
actor PortBox {
    struct Ports {
        var bare: Int?
    }

    private var ports = Ports()

    func set(_ key: WritableKeyPath<Ports, Int?>, _ port: Int) { ports[keyPath: key] = port }

    func wait(_ key: KeyPath<Ports, Int?>) async throws -> Int {
        for _ in 0..<300 {
            if let port = ports[keyPath: key] { return port }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ValidationError("a server did not start")
    }
}

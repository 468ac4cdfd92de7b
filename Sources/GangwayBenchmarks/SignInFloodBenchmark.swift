import ArgumentParser
import Foundation
import GangwayServer
import GangwaySystem
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `gangway-benchmark sign-in-flood`: how long a real person's sign-in takes while `wrk`
/// floods the server with sign-ins of unknown user names, each a bcrypt check.
///
/// Three servers, one after the other, each measured quiet and then under the flood:
/// - **unbounded**: password checks queue without limit, as before the server bounded
///   them: the person waits behind the whole flood;
/// - **bounded, device cookie**: the server's default; the person signs in on a device
///   they used before, so their check goes ahead of the flood's;
/// - **bounded, new device**: no cookie; the flood's checks and theirs share the queue,
///   and past its bound the server answers 503 at once instead of queueing.
///
/// Every ratio is a p99 under the flood over the quiet p99 of the same server and run.
struct SignInFloodBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in-flood",
        abstract: "Measure a real sign-in while wrk floods the server with unknown-user sign-ins."
    )

    @Option(help: "Concurrent connections of the flood.")
    var connections = 80

    @Option(name: .customLong("bcrypt-cost"), help: "bcrypt cost of the server's passwords.")
    var bcryptCost: UInt8 = 10

    @Option(help: "Real sign-ins timed per measurement, at most.")
    var signIns = 40

    @Option(help: "Seconds each flood lasts; sign-ins are timed from its second second to three before its end.")
    var seconds = 30

    func validate() throws {
        guard seconds >= 5 else { throw ValidationError("--seconds must be at least 5.") }
    }

    func run() async throws {
        guard let wrk = ExternalTool("wrk").executable else {
            throw ValidationError("wrk is not installed (Debian: apt-get install wrk)")
        }
        let script = FileManager.default.temporaryDirectory
            .appendingPathComponent("gangway-flood-\(UUID().uuidString).lua")
        try Self.floodScript.write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }

        print("flood.config.connections: \(connections)")
        print("flood.config.bcrypt_cost: \(bcryptCost)")
        print("flood.config.sign_ins: \(signIns)")
        print("flood.config.seconds: \(seconds)")
        print("flood.config.cores: \(ProcessInfo.processInfo.activeProcessorCount)")
        try await scenario("unbounded", unbounded: true, cookie: false, wrk: wrk, script: script)
        try await scenario("cookie", unbounded: false, cookie: true, wrk: wrk, script: script)
        try await scenario("new_device", unbounded: false, cookie: false, wrk: wrk, script: script)
    }

    /// One server: the quiet sign-ins, then the same under the flood.
    private func scenario(
        _ name: String,
        unbounded: Bool,
        cookie: Bool,
        wrk: String,
        script: URL
    ) async throws {
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let generous: (inout ServerConfiguration) -> Void = { configuration in
            // Generous limits, so that what is measured is the password checks, not the throttle.
            configuration.allowedSignInFailures = 1_000_000
            configuration.allowedSignInFailuresPerUser = 1_000_000
            if unbounded { configuration.concurrentPasswordChecks = 1_000_000 }
        }
        try await BenchmarkServer.run(
            seed: ServerSeed(apps: [BenchmarkServer.app()], users: [BenchmarkServer.user]),
            bcryptCost: bcryptCost,
            logger: logger,
            configure: generous
        ) { server in
            let base = server.url.absoluteString
            let deviceCookie = try await Self.signIn(base: base, cookie: nil).cookie
            let sent = cookie ? deviceCookie : nil
            let quiet = try await timeSignIns(base: base, cookie: sent)
            // wrk runs for a fixed time (Foundation starts it with signals blocked, so it
            // cannot be interrupted); sign-ins are timed while it runs.
            let flood = Process()
            flood.executableURL = URL(fileURLWithPath: wrk)
            flood.arguments = [
                "-t2", "-c\(connections)", "-d\(seconds)s", "-s", script.path, "\(base)/apps/checks/sessions",
            ]
            let pipe = Pipe()
            flood.standardOutput = pipe
            flood.standardError = FileHandle.nullDevice
            try flood.start()
            let loaded: Timings
            do {
                try await Task.sleep(for: .seconds(2))
                loaded = try await timeSignIns(base: base, cookie: sent, until: .now + .seconds(seconds - 3))
            } catch {
                kill(flood.processIdentifier, SIGKILL)
                throw error
            }
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            flood.waitUntilExit()
            Measure.report("flood.\(name).quiet_p99_ms", quiet.p99)
            Measure.report("flood.\(name).p99_ms", loaded.p99)
            Measure.report("flood.\(name).median_ms", loaded.median)
            Measure.report("flood.\(name).p99_ratio_to_quiet", loaded.p99 / quiet.p99)
            Measure.report("flood.\(name).busy_share", loaded.busyShare, digits: 3)
            Measure.report("flood.\(name).sign_ins_timed", Double(loaded.count), digits: 0)
            if let rps = ServerBenchmark.number(after: "Requests/sec:", in: output) {
                Measure.report("flood.\(name).flood_rps", rps, digits: 0)
            }
        }
    }

    struct Timings {
        var median: Double
        var p99: Double
        /// The share of sign-ins answered 503 (busy) rather than signed in.
        var busyShare: Double
        var count: Int
    }

    /// Times ``signIns`` sign-ins of alice, one after the other, or as many as start
    /// before `deadline`; a 503 counts as answered (its time is what the person waits).
    private func timeSignIns(
        base: String,
        cookie: String?,
        until deadline: ContinuousClock.Instant? = nil
    ) async throws -> Timings {
        var times: [Double] = []
        var busy = 0
        for _ in 0..<max(3, signIns) {
            if let deadline, ContinuousClock.now > deadline, !times.isEmpty { break }
            let started = ContinuousClock.now
            let answer = try await Self.signIn(base: base, cookie: cookie)
            times.append(Measure.milliseconds(ContinuousClock.now - started))
            if answer.status == 503 { busy += 1 }
        }
        times.sort()
        let p99 = times[min(times.count - 1, Int((Double(times.count) * 0.99).rounded(.up)) - 1)]
        return Timings(
            median: times[times.count / 2],
            p99: p99,
            busyShare: Double(busy) / Double(times.count),
            count: times.count
        )
    }

    /// Signs alice in; a status other than 201 or 503 is an error.
    private static func signIn(base: String, cookie: String?) async throws -> (status: Int, cookie: String?) {
        var request = URLRequest(url: URL(string: "\(base)/apps/checks/sessions")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        var body: [String: String] = ["username": "alice", "password": "alice-password", "deviceID": "bench-device"]
        body["deviceCookie"] = cookie
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        request.timeoutInterval = 120
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 201 || status == 503 else {
            throw ValidationError("sign-in failed with \(status): \(String(decoding: data, as: UTF8.self))")
        }
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (status, object?["deviceCookie"] as? String)
    }

    /// wrk's request generator: a sign-in of a new unknown user name each time.
    static let floodScript = """
        counter = 0
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/json"
        request = function()
          counter = counter + 1
          local body = string.format(
            '{"username":"nobody-%d-%d","password":"guess","deviceID":"flood"}',
            math.random(1, 1000000000), counter)
          return wrk.format(nil, nil, nil, body)
        end
        """
}

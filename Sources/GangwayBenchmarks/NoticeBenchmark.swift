import ArgumentParser
import Foundation
import GangwayServer
import GangwaySystem
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `gangway-benchmark notices --postgres URL`: how soon a wipe made through one server
/// process is refused by two others on the same PostgreSQL schema, each keeping what it
/// reads for a minute, so that only the wipe's notice can make them refuse in time.
///
/// Each trial registers a device through the first server, has the other two read it
/// (and keep it), wipes it through the first's admin API, and from the wipe's answer
/// asks each other server, request after request, until it refuses; the trial's figure is
/// the later of the two. The baseline, in the same run, is one refused request to the
/// server that made the wipe (which drops its own cache at once): the ratio says how many
/// of its request times a notice adds.
struct NoticeBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notices",
        abstract: "Measure how soon a wipe through one server process is refused by two others on one PostgreSQL."
    )

    @Option(help: "A postgres:// URL of a database; the run makes a schema of its own and drops it.")
    var postgres: String

    @Option(help: "Trials: devices wiped, one at a time.")
    var trials = 100

    func validate() throws {
        try SyncBenchmark.checkPostgres(postgres)
        guard (1...10_000).contains(trials) else { throw ValidationError("--trials must be from 1 to 10000.") }
    }

    func run() async throws {
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        try await SyncBenchmark.withDatabase(postgres, named: "notices") { database in
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("gangway-benchmark-\(UUID().uuidString)")
            try PrivateFiles.makeDirectory(directory)
            defer { try? FileManager.default.removeItem(at: directory) }
            var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory)
            configuration.postgresURL = database
            configuration.bcryptCost = 4
            configuration.cacheLifetime = .seconds(60)
            var servers: [MobileServicesServer] = []
            for _ in 0..<3 {
                servers.append(try await MobileServicesServer(configuration: configuration, logger: logger))
            }
            try await servers[0].seed(
                ServerSeed(apps: [BenchmarkServer.app()], users: [BenchmarkServer.user])
            )
            let hosts = servers.map { ServerHost(server: $0, logger: logger) }
            try await hosts[0].serving { _ in
                try await hosts[1].serving { _ in
                    try await hosts[2].serving { _ in
                        var urls: [String] = []
                        for host in hosts { urls.append(try await host.url().absoluteString) }
                        let token = try String(contentsOf: configuration.adminTokenPath, encoding: .utf8)
                            .trimmingCharacters(in: .whitespacesAndNewlines)
                        try await measure(urls, adminToken: token)
                    }
                }
            }
        }
    }

    private func measure(_ urls: [String], adminToken: String) async throws {
        let session = URLSession(configuration: .ephemeral)
        var others: [Double] = []
        var own: [Double] = []
        for trial in 0..<trials {
            let device = "bench-\(trial)"
            let token =
                try await Self.json(
                    session,
                    "POST",
                    urls[0] + "/apps/checks/sessions",
                    body: #"{"username": "alice", "password": "alice-password", "deviceID": "\#(device)"}"#
                )["token"] as? String ?? ""
            let registration =
                try await Self.json(
                    session,
                    "PUT",
                    urls[0] + "/apps/checks/devices/\(device)",
                    token: token,
                    body: #"{"deviceName": "bench", "platform": "linux", "appVersion": "1.0.0"}"#
                )["registrationID"] as? String ?? ""
            for url in urls[1...] {
                guard try await Self.status(session, url + "/apps/checks/settings", token: token) == 200 else {
                    throw ValidationError("a registered device was refused before its wipe")
                }
            }
            _ = try await Self.json(
                session,
                "PATCH",
                urls[0] + "/admin/apps/checks/devices/\(registration)",
                token: adminToken,
                body: #"{"status": "wiped"}"#
            )
            let wiped = ContinuousClock.now
            let waits = try await withThrowingTaskGroup(of: Double.self) { group in
                for url in urls[1...] {
                    group.addTask {
                        while try await Self.status(session, url + "/apps/checks/settings", token: token) == 200 {
                            guard ContinuousClock.now - wiped < .seconds(120) else {
                                throw ValidationError("a wiped device was still served after two minutes")
                            }
                        }
                        return Measure.milliseconds(ContinuousClock.now - wiped)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            others.append(waits.max() ?? 0)
            let asked = ContinuousClock.now
            guard try await Self.status(session, urls[0] + "/apps/checks/settings", token: token) == 403 else {
                throw ValidationError("the server that wiped the device still served it")
            }
            own.append(Measure.milliseconds(ContinuousClock.now - asked))
        }
        others.sort()
        own.sort()
        func percentile(_ values: [Double], _ fraction: Double) -> Double {
            values[min(values.count - 1, Int((Double(values.count) * fraction).rounded(.up)) - 1)]
        }
        print("notices.config.trials: \(trials)")
        print("notices.config.processes: 3 (one PostgreSQL schema, caches of 60 s)")
        print("notices.other_p50_ms: \(String(format: "%.2f", percentile(others, 0.5)))")
        print("notices.other_p99_ms: \(String(format: "%.2f", percentile(others, 0.99)))")
        print("notices.other_max_ms: \(String(format: "%.2f", others.last ?? 0))")
        print("notices.own_p50_ms: \(String(format: "%.2f", percentile(own, 0.5)))")
        print("notices.own_p99_ms: \(String(format: "%.2f", percentile(own, 0.99)))")
        print(
            "notices.ratio_other_p99_to_own_p50: \(String(format: "%.1f", percentile(others, 0.99) / max(percentile(own, 0.5), 0.001)))"
        )
    }

    private static func status(_ session: URLSession, _ url: String, token: String) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await session.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    private static func json(
        _ session: URLSession,
        _ method: String,
        _ url: String,
        token: String? = nil,
        body: String
    ) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await session.data(for: request)
        guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
            throw ValidationError("\(method) \(URL(string: url)?.path ?? "") failed")
        }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}

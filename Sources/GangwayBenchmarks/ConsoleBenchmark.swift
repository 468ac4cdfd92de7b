import ArgumentParser
import Crypto
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `gangway-benchmark console`: the console's users page over many users, against the
/// admin API's JSON for the same rows (`GET /admin/users?after=…&limit=51`, the operation
/// the page itself runs), measured in the same run, request after request on one
/// keep-alive connection each; the pages start at names spread over the whole table, so
/// the database's paging is measured, not the first page alone.
struct ConsoleBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Benchmark the console's users page against the admin API's JSON; prints name: value lines."
    )

    @Option(help: "Users in the database.")
    var users = 100_000

    @Option(help: "Requests per measurement.")
    var requests = 300

    @Option(help: "Rounds: the page and the JSON alternate this many times; the medians are reported.")
    var rounds = 3

    func validate() throws {
        guard users >= 100 else { throw ValidationError("--users is at least 100.") }
        guard requests >= 20 else { throw ValidationError("--requests is at least 20.") }
        guard (1...20).contains(rounds) else { throw ValidationError("--rounds is 1 to 20.") }
    }

    func run() async throws {
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let seed = ServerSeed(apps: [BenchmarkServer.app()], users: [BenchmarkServer.user])
        try await BenchmarkServer.run(seed: seed, bcryptCost: 4, logger: logger) { server in
            try await measure(server)
        }
    }

    private func measure(_ running: BenchmarkServer.Running) async throws {
        let storage = running.server.storage
        let started = ContinuousClock.now
        let created = Date()
        for index in 0..<users {
            try await storage.insertUser(
                UserRecord(
                    username: Self.name(index),
                    displayName: "Crew member \(index)",
                    passwordHash: "$2b$04$benchmarkbenchmarkbenchmarkbenchmarkbenchmarkbenchmark",
                    createdAt: created
                )
            )
        }
        print("console.config.users: \(users + 1)")
        print("console.config.requests: \(requests)")
        Measure.report("console.setup.insert_s", Measure.milliseconds(ContinuousClock.now - started) / 1_000)

        // A viewer's console session, as a sign-in leaves one.
        let cookie = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64URLEncoded
        try await storage.insertOperator(OperatorRecord(name: "bench", role: .viewer, createdAt: created))
        try await storage.insertOperatorSession(
            OperatorSessionRecord(
                tokenHash: Data(SHA256.hash(data: Data(cookie.utf8))),
                operatorName: "bench",
                createdAt: created,
                lastSeenAt: created
            )
        )
        let adminToken = try String(contentsOf: running.server.configuration.adminTokenPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)

        // Where the pages start: the first, and names spread over the table.
        let starts: [String?] = [nil] + (1..<10).map { Self.name(users * $0 / 10) }
        let base = running.url.absoluteString
        func page(_ index: Int) -> URLRequest {
            let after = starts[index % starts.count].map { "?after=\($0)" } ?? ""
            var request = URLRequest(url: URL(string: "\(base)/console/users\(after)")!)
            request.setValue("gangway_console=\(cookie)", forHTTPHeaderField: "Cookie")
            return request
        }
        func json(_ index: Int) -> URLRequest {
            let after = starts[index % starts.count].map { "&after=\($0)" } ?? ""
            var request = URLRequest(url: URL(string: "\(base)/admin/users?limit=51\(after)")!)
            request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
            return request
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration)

        // Each answer once, checked: fifty rows on the page, fifty-one in the JSON.
        let shown = try await Self.fetch(session, page(1))
        guard
            String(decoding: shown, as: UTF8.self).components(separatedBy: "<a href=\"/console/users/crew").count == 51
        else { throw ValidationError("the users page did not show fifty users") }
        let listed = try JSONSerialization.jsonObject(with: try await Self.fetch(session, json(1))) as? [Any]
        guard listed?.count == 51 else { throw ValidationError("the admin API did not list fifty-one users") }

        var pageRuns: [[Double]] = []
        var jsonRuns: [[Double]] = []
        for _ in 0..<rounds {
            jsonRuns.append(try await Self.time(session, requests, json))
            pageRuns.append(try await Self.time(session, requests, page))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let page50 = median(pageRuns.map { Self.percentile($0, 0.5) })
        let page95 = median(pageRuns.map { Self.percentile($0, 0.95) })
        let json50 = median(jsonRuns.map { Self.percentile($0, 0.5) })
        let json95 = median(jsonRuns.map { Self.percentile($0, 0.95) })
        Measure.report("console.users_page.p50_ms", page50)
        Measure.report("console.users_page.p95_ms", page95)
        Measure.report("console.admin_json.p50_ms", json50)
        Measure.report("console.admin_json.p95_ms", json95)
        Measure.report("console.users_page.ratio_to_json_p50", page50 / json50)
        Measure.report("console.users_page.ratio_to_json_p95", page95 / json95)
        print("console.config.page_bytes: \(shown.count)")
    }

    /// The `index`th user's name: sorted as numbered.
    static func name(_ index: Int) -> String { String(format: "crew%07d", index) }

    /// The milliseconds of `count` requests made one after another.
    static func time(_ session: URLSession, _ count: Int, _ request: (Int) -> URLRequest) async throws -> [Double] {
        var times: [Double] = []
        for index in 0..<count {
            let started = ContinuousClock.now
            _ = try await fetch(session, request(index))
            times.append(Measure.milliseconds(ContinuousClock.now - started))
        }
        return times
    }

    static func fetch(_ session: URLSession, _ request: URLRequest) async throws -> Data {
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw ValidationError(
                "\(request.url?.path ?? "") answered \((response as? HTTPURLResponse)?.statusCode ?? 0)"
            )
        }
        return data
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

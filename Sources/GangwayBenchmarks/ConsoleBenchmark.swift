import ArgumentParser
import Crypto
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `gangway-benchmark console`: the console's users page over many users, against the
/// admin API's JSON for the same rows (`GET /admin/users?after=…&limit=51`, the operation
/// the page itself runs), measured in the same run, request after request on one
/// keep-alive connection each; the pages start at names spread over the whole table, so
/// the database's paging is measured, not the first page alone. Then the overview with a
/// month of activity (every hour counted) and devices spread over it, against the two
/// JSON answers it draws (`GET /admin/activity?period=month` and `GET /admin/attention`).
struct ConsoleBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract:
            "Benchmark the console's users page and overview against the admin API's JSON; prints name: value lines."
    )

    @Option(help: "Users in the database.")
    var users = 100_000

    @Option(help: "Device registrations, their last contacts spread over the month of activity.")
    var devices = 10_000

    @Option(help: "Requests per measurement.")
    var requests = 300

    @Option(help: "Rounds: the page and the JSON alternate this many times; the medians are reported.")
    var rounds = 3

    func validate() throws {
        guard users >= 100 else { throw ValidationError("--users is at least 100.") }
        guard devices >= 1 else { throw ValidationError("--devices is at least 1.") }
        guard requests >= 20 else { throw ValidationError("--requests is at least 20.") }
        guard (1...20).contains(rounds) else { throw ValidationError("--rounds is 1 to 20.") }
    }

    func run() async throws {
        try await BenchmarkServer.runQuietly { server, _ in try await measure(server) }
    }

    private func measure(_ running: BenchmarkServer.Running) async throws {
        let storage = running.server.storage
        let started = ContinuousClock.now
        let created = WallClock.now()
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
        let shown = try await RequestTiming.fetch(session, page(1))
        guard
            String(decoding: shown, as: UTF8.self).components(separatedBy: "<a href=\"/console/users/crew").count == 51
        else { throw ValidationError("the users page did not show fifty users") }
        let listed = try JSONSerialization.jsonObject(with: try await RequestTiming.fetch(session, json(1))) as? [Any]
        guard listed?.count == 51 else { throw ValidationError("the admin API did not list fifty-one users") }

        try await compare(session, "users_page", "admin_json", page: { [page($0)] }, json: { [json($0)] })
        print("console.config.page_bytes: \(shown.count)")

        try await seedMonth(storage, at: created)
        func overview(_: Int) -> [URLRequest] {
            var request = URLRequest(url: URL(string: "\(base)/console?period=month")!)
            request.setValue("gangway_console=\(cookie)", forHTTPHeaderField: "Cookie")
            return [request]
        }
        func figures(_: Int) -> [URLRequest] {
            ["/admin/activity?period=month", "/admin/attention"].map { path in
                var request = URLRequest(url: URL(string: base + path)!)
                request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
                return request
            }
        }
        let drawn = String(decoding: try await RequestTiming.fetch(session, overview(0)[0]), as: UTF8.self)
        guard drawn.components(separatedBy: "<rect ").count > 4 * 30, drawn.contains("out of contact past") else {
            throw ValidationError("the overview did not draw a month of activity and the devices out of contact")
        }
        try await compare(session, "overview", "overview_json", page: overview, json: figures)
        print("console.config.overview_bytes: \(drawn.utf8.count)")
    }

    /// Times `page` and `json` (each sample the requests one index gives, one after
    /// another), alternating for ``rounds`` rounds, and reports the medians and ratios.
    private func compare(
        _ session: URLSession,
        _ pageName: String,
        _ jsonName: String,
        page: (Int) -> [URLRequest],
        json: (Int) -> [URLRequest]
    ) async throws {
        var pageRuns: [[Double]] = []
        var jsonRuns: [[Double]] = []
        for _ in 0..<rounds {
            jsonRuns.append(try await RequestTiming.time(session, requests, json))
            pageRuns.append(try await RequestTiming.time(session, requests, page))
        }
        let page50 = Measure.median(of: pageRuns, percentile: 0.5)
        let page95 = Measure.median(of: pageRuns, percentile: 0.95)
        let json50 = Measure.median(of: jsonRuns, percentile: 0.5)
        let json95 = Measure.median(of: jsonRuns, percentile: 0.95)
        Measure.report("console.\(pageName).p50_ms", page50)
        Measure.report("console.\(pageName).p95_ms", page95)
        Measure.report("console.\(jsonName).p50_ms", json50)
        Measure.report("console.\(jsonName).p95_ms", json95)
        Measure.report("console.\(pageName).ratio_to_json_p50", page50 / json50)
        Measure.report("console.\(pageName).ratio_to_json_p95", page95 / json95)
    }

    /// A month of activity, every hour of it counted, and ``devices`` registrations of
    /// the users whose last contacts are spread over it; the app locks a device after 7
    /// days out of contact, so the overview lists those past it.
    private func seedMonth(_ storage: ServerStorage, at now: Date) async throws {
        let started = ContinuousClock.now
        let appID = BenchmarkServer.appID
        for hour in 0..<(30 * 24) {
            let date = now.addingTimeInterval(-Double(hour) * 3600)
            try await storage.countActivity(
                [
                    .signIns: 20 + hour % 7, .signInFailures: hour % 3, .changes: 40 + hour % 11, .conflicts: hour % 2,
                    .refusedChanges: hour % 5 == 0 ? 1 : 0, .registrations: hour % 4,
                    .activeDevicesInHour: 60 + hour % 9,
                    .activeDevicesInDay: hour % 24 == 0 ? 900 : 0,
                ],
                appID: appID,
                at: date
            )
        }
        for index in 0..<devices {
            let contact = now.addingTimeInterval(-Double(index % (30 * 24)) * 3600)
            try await storage.saveDevice(
                DeviceRecord(
                    registrationID: "bench-\(index)",
                    appID: appID,
                    username: Self.name(index % users),
                    deviceID: "device-\(index)",
                    deviceName: "Tablet \(index)",
                    platform: "linux",
                    appVersion: "1.0.0",
                    statusChangedAt: contact,
                    recoverySecret: Data(repeating: 0, count: 32),
                    registeredAt: contact,
                    lastContactAt: contact
                )
            )
        }
        guard var app = try await storage.app(id: appID) else { throw ValidationError("the app is missing") }
        app.settings.blockWipingPolicy = .init(
            blockWipeEnabled: true,
            blockDisconnectedPeriod: 7,
            wipeDisconnectedPeriod: 21
        )
        try await storage.updateApp(app)
        print("console.config.devices: \(devices)")
        Measure.report("console.setup.month_s", Measure.milliseconds(ContinuousClock.now - started) / 1_000)
    }

    /// The `index`th user's name: sorted as numbered.
    static func name(_ index: Int) -> String { String(format: "crew%07d", index) }

}

import ArgumentParser
import AsyncHTTPClient
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import Logging
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// `gangway-benchmark pull`: an entity set read from the company's OData service by its
/// data source: the first read of `--rows` entities, page after page, and a delta of
/// `--delta` changes; against reading the same pages straight from the service in the
/// same run (the service's own speed: what the server adds is the rest). The service is
/// the tests' OData backend (`Tests/Fixtures/odata/backend.py`, not Gangway's code), run
/// with the tests' Python (`.ci/run` makes `.build-oidc/venv`), as a credential
/// destination. Times are the server's own (when the read started and ended).
struct PullBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Benchmark reading an entity set from an OData service; prints name: value lines."
    )

    @Option(help: "Entities the service holds.")
    var rows = 100_000

    @Option(help: "Entities the service changes for the delta read.")
    var delta = 50

    @Option(help: "Delta reads measured; the median is reported.")
    var deltas = 5

    @Option(help: "The Python with PyJWT that runs the service.")
    var python = ".build-oidc/venv/bin/python"

    @Option(help: "The service's script.")
    var script = "Tests/Fixtures/odata/backend.py"

    @Option(help: "A PostgreSQL database to run on (postgres://user:password@host/db, no schema); SQLite when none.")
    var postgres: String?

    func validate() throws {
        guard rows >= 1, (1...10_000).contains(delta), (1...50).contains(deltas) else {
            throw ValidationError("give --rows 1 or more, --delta 1 to 10000 and --deltas 1 to 50")
        }
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: script)
        else {
            throw ValidationError(
                "the OData service needs \(python) and \(script): run from the checkout after .ci/run"
            )
        }
        if let postgres { try SyncBenchmark.checkPostgres(postgres) }
    }

    func run() async throws {
        print("pull.config.rows: \(rows)")
        print("pull.config.delta: \(delta)")
        print("pull.config.storage: \(postgres == nil ? "sqlite" : "postgresql")")
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let seed = ServerSeed(apps: [BenchmarkServer.app()], users: [BenchmarkServer.user])
        let service = try await Service.start(python: python, script: script)
        defer { service.stop() }
        try await SyncBenchmark.withDatabase(postgres, named: "pull") { database in
            try await BenchmarkServer.run(
                seed: seed,
                bcryptCost: 4,
                logger: logger,
                configure: { $0.postgresURL = database }
            ) { running in
                try await measure(running, service)
            }
        }
    }

    private func measure(_ running: BenchmarkServer.Running, _ service: Service) async throws {
        try await service.control("load", ["count": rows])
        // The baseline: every page read straight from the service, as the server asks.
        let direct = try await SyncBenchmark.timed { try await service.readAll(from: service.url + "/Checks") }
        guard direct.value == rows else { throw ValidationError("the service gave \(direct.value) of \(rows) rows") }

        let base = running.url.absoluteString
        let token = try String(contentsOf: running.server.configuration.adminTokenPath, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let app = "\(base)/admin/apps/\(BenchmarkServer.appID)"
        _ = try await ServerBenchmark.send(
            "PUT",
            "\(app)/destinations/erp",
            token: token,
            body:
                #"{"url": "\#(service.url)", "authentication": "credential", "credentialHeader": "X-API-Key", "credential": "\#(Service.apiKey)"}"#
        )
        _ = try await ServerBenchmark.send(
            "PUT",
            "\(app)/data-sources/checks",
            token: token,
            body: #"{"destination": "erp", "path": "/Checks"}"#
        )
        // A new source is read at once, by the server's own loop.
        let first = try await finished(running, after: nil)
        guard first.error == nil, first.tally.written == rows else {
            throw ValidationError("the first read: \(first.error ?? "\(first.tally.written) of \(rows) written")")
        }
        let firstSeconds = first.finishedAt.timeIntervalSince(first.startedAt)

        var deltaTimes: [Double] = []
        var directDeltaTimes: [Double] = []
        var last = first
        for round in 0..<deltas {
            let changed = (1...delta).map { index in
                ["ID": String(format: "C-%07d", (round * delta + index) % rows + 1), "Status": "done-\(round)"]
            }
            try await service.control("change", ["put": changed])
            _ = try await ServerBenchmark.send("POST", "\(app)/data-sources/checks/pull", token: token, body: nil)
            let run = try await finished(running, after: last)
            guard run.error == nil, run.kind == .delta, run.rows == delta else {
                throw ValidationError("a delta read: \(run.error ?? "\(run.kind), \(run.rows) rows")")
            }
            deltaTimes.append(run.finishedAt.timeIntervalSince(run.startedAt) * 1_000)
            last = run
            // The baseline: the same delta read straight from the service, from the link
            // before this round's changes.
            let link = service.url + "/Checks?$deltatoken=\(try await service.sequence() - delta)"
            directDeltaTimes.append(
                try await SyncBenchmark.timed { try await service.readAll(from: link) }.seconds * 1_000
            )
        }
        Measure.report("pull.first.rows_per_s", Double(rows) / firstSeconds, digits: 0)
        Measure.report("pull.direct.rows_per_s", Double(rows) / direct.seconds, digits: 0)
        Measure.report("pull.first.ratio_to_direct", direct.seconds / firstSeconds)
        Measure.report("pull.delta.ms", Self.median(deltaTimes), digits: 1)
        Measure.report("pull.direct_delta.ms", Self.median(directDeltaTimes), digits: 1)
    }

    /// The source's read that ends after `previous`, once it has.
    private func finished(
        _ running: BenchmarkServer.Running,
        after previous: DataSourceRun?
    ) async throws
        -> DataSourceRun
    {
        for _ in 0..<12_000 {
            if let source = try await running.server.storage.dataSource(
                appID: BenchmarkServer.appID,
                entitySet: "checks"
            ),
                let last = source.state.last, last != previous, !source.state.isRunning(at: WallClock.now())
            {
                return last
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ValidationError("the read did not end within two minutes")
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// The tests' OData service, as a process of its own.
    struct Service {
        static let apiKey = "benchmark-key"
        let url: String
        let process: Process
        let input: Pipe

        static func start(python: String, script: String) async throws -> Service {
            let ready = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-odata-\(UUID())").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script, "--api-key", apiKey, "--ready-file", ready]
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<600 {
                if let text = try? String(contentsOfFile: ready, encoding: .utf8),
                    let url = text.split(separator: "\n").first
                {
                    try? FileManager.default.removeItem(atPath: ready)
                    return Service(url: String(url), process: process, input: input)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            process.terminate()
            throw ValidationError("the OData service did not start")
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
        }

        private var root: String { String(url.dropLast("/odata".count)) }

        func control(_ name: String, _ document: [String: Any]) async throws {
            var request = HTTPClientRequest(url: root + "/control/" + name)
            request.method = .POST
            request.body = .bytes(ByteBuffer(bytes: Array(try JSONSerialization.data(withJSONObject: document))))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
            _ = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else { throw ValidationError("the service refused \(name)") }
        }

        /// The service's last change's number, as its stats do not say: read from a full
        /// read's delta link.
        func sequence() async throws -> Int {
            var request = HTTPClientRequest(url: url + "/Checks?$skiptoken=~")
            request.headers.add(name: "X-API-Key", value: Self.apiKey)
            request.headers.add(name: "Prefer", value: "odata.track-changes")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            let page = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
            guard let link = page?["@odata.deltaLink"] as? String,
                let number = link.split(separator: "=").last.flatMap({ Int($0) })
            else { throw ValidationError("the service gave no delta link") }
            return number
        }

        /// Reads every page from `url` on, as the server does; the rows read.
        func readAll(from start: String) async throws -> Int {
            var next: String? = start
            var rows = 0
            while let url = next {
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "X-API-Key", value: Self.apiKey)
                request.headers.add(name: "Prefer", value: "odata.track-changes, odata.maxpagesize=5000")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 64 << 20)
                let page = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
                rows += (page?["value"] as? [Any])?.count ?? 0
                next = (page?["@odata.nextLink"] ?? page?["@nextLink"]) as? String
                if let link = next, !link.hasPrefix("http") {
                    next = url.prefix { $0 != "?" }.replacingOccurrences(of: "/Checks", with: "") + "/" + link
                }
            }
            return rows
        }
    }
}

import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import Logging
import OpenAPIRuntime

/// `gangway-benchmark ingest`: a backend's bulk write of an entity set as NDJSON batches
/// over HTTP (`POST /admin/apps/{app}/data/{set}/ingest/{batch}`, through the admin
/// client), against the same number of rows written by one bulk `INSERT … SELECT` per
/// 50,000 in the same run (the database's own speed), with the process's resident memory
/// while it runs. The client and the server share the process and its two cores: the
/// client's share (writing each batch's NDJSON, sending it) is in the figure.
struct IngestBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Benchmark ingesting an entity set in bulk; prints name: value lines."
    )

    @Option(help: "Rows the batch holds.")
    var rows = 1_000_000

    @Option(help: "Rows per request (one batch each).")
    var batch = EntityLimits.ingestBatchLines

    @Option(
        help: """
            A PostgreSQL database to run on (postgres://user:password@host/db, no schema): the \
            benchmark makes a schema of its own there and drops it at the end. SQLite in a \
            temporary directory when none.
            """
    )
    var postgres: String?

    func validate() throws {
        guard rows >= 1, (1...100_000).contains(batch) else {
            throw ValidationError("give --rows 1 or more and --batch 1 to 100000")
        }
        if let postgres { try SyncBenchmark.checkPostgres(postgres) }
    }

    func run() async throws {
        print("ingest.config.rows: \(rows)")
        print("ingest.config.batch: \(batch)")
        print("ingest.config.storage: \(postgres == nil ? "sqlite" : "postgresql")")
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        var app = BenchmarkServer.app()
        app.schemas = ["checks": SyncBenchmark.checksFields]
        let seed = ServerSeed(apps: [app], users: [BenchmarkServer.user])
        try await SyncBenchmark.withDatabase(postgres, named: "ingest") { database in
            try await measure(on: database, logger: logger, seed: seed)
        }
    }

    private func measure(on database: String?, logger: Logger, seed: ServerSeed) async throws {
        try await BenchmarkServer.run(
            seed: seed,
            bcryptCost: 4,
            logger: logger,
            configure: { $0.postgresURL = database }
        ) { running in
            let storage = running.server.storage
            // The baseline: the database writing the same rows in one statement per 50,000.
            let bulk = try await SyncBenchmark.timed { try await SyncBenchmark.fill(storage, from: 1, through: rows) }
            let token = try String(contentsOf: running.server.configuration.adminTokenPath, encoding: .utf8)
            let admin = AdminClient(serverURL: running.url, adminToken: token)
            let residentBefore = SyncBenchmark.residentMegabytes()
            let ingested = try await SyncBenchmark.timed { () async throws -> (written: Int, refused: Int) in
                var (written, refused) = (0, 0)
                var first = 1
                while first <= rows {
                    let last = min(rows, first + batch - 1)
                    let report = try await admin.ingest(
                        HTTPBody(Self.ndjson(first...last)),
                        into: "checks",
                        app: BenchmarkServer.appID,
                        batch: "benchmark-\(first)"
                    )
                    written += report.written
                    refused += report.refused
                    first = last + 1
                }
                return (written, refused)
            }
            let residentAfter = SyncBenchmark.residentMegabytes()
            guard ingested.value.written == rows, ingested.value.refused == 0 else {
                throw ValidationError(
                    "ingested \(ingested.value.written) of \(rows), \(ingested.value.refused) refused"
                )
            }
            Measure.report("ingest.http.rows_per_s", Double(rows) / ingested.seconds, digits: 0)
            Measure.report("ingest.bulk_insert.rows_per_s", Double(rows) / bulk.seconds, digits: 0)
            Measure.report("ingest.http.ratio_to_bulk_insert", bulk.seconds / ingested.seconds)
            Measure.report("ingest.http.resident_growth_mb", residentAfter - residentBefore, digits: 1)
        }
    }

    /// The NDJSON of rows `lines`, as a backend would send them.
    static func ndjson(_ lines: ClosedRange<Int>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.count * 320)
        for line in lines {
            bytes.append(contentsOf: #"{"id":"#.utf8)
            JSONBytes.string("row-\(10_000_000 + line)", into: &bytes)
            bytes.append(contentsOf: #","fields":{"#.utf8)
            for (index, (name, value)) in fields(line).sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONBytes.string(name, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                JSONBytes.string(value, into: &bytes)
            }
            bytes.append(contentsOf: "}}\n".utf8)
        }
        return bytes
    }

    /// The ten fields of row `line`, as the checks' schema types them.
    static func fields(_ line: Int) -> [String: String] {
        [
            "aircraft": "A320 F-G\(line % 997)", "station": "\(line % 40)", "stand": "\(line % 60)",
            "kind": "walkaround", "item": "tyre pressure", "status": "open", "value": "\(line % 200)", "unit": "psi",
            "due": "2026-12-03T\(10 + line % 12):00:00Z", "note": "none",
        ]
    }
}

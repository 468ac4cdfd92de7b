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
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let admin = AdminClient(serverURL: running.url, adminToken: token)
            let residentBefore = SyncBenchmark.residentMegabytes()
            let ingested = try await SyncBenchmark.timed { () async throws -> (written: Int, refused: Int) in
                var (written, refused) = (0, 0)
                // A backend's export job writes its next batch while the server takes this
                // one, as the server reads the next part while it writes this one.
                let batches = stride(from: 1, through: rows, by: batch).map { $0...min(rows, $0 + batch - 1) }
                var next: Task<[UInt8], Never>? = Task { Self.ndjson(batches[0]) }
                for (index, lines) in batches.enumerated() {
                    guard let body = await next?.value else { break }
                    next = index + 1 < batches.count ? Task { [batches] in Self.ndjson(batches[index + 1]) } : nil
                    let report = try await admin.ingest(
                        HTTPBody(body),
                        into: "checks",
                        app: BenchmarkServer.appID,
                        batch: "benchmark-\(lines.lowerBound)"
                    )
                    written += report.written
                    refused += report.refused
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
            // Ten fields, of the checks' schema, written in sorted order as a backend's
            // export would be: the client's share of the figure stays small.
            bytes.append(contentsOf: #","fields":{"aircraft":"A320 F-G"#.utf8)
            bytes.append(contentsOf: "\(line % 997)".utf8)
            bytes.append(contentsOf: #"","due":"2026-12-03T"#.utf8)
            bytes.append(contentsOf: "\(10 + line % 12)".utf8)
            bytes.append(
                contentsOf: #":00:00Z","item":"tyre pressure","kind":"walkaround","note":"none","stand":""#.utf8
            )
            bytes.append(contentsOf: "\(line % 60)".utf8)
            bytes.append(contentsOf: #"","station":""#.utf8)
            bytes.append(contentsOf: "\(line % 40)".utf8)
            bytes.append(contentsOf: #"","status":"open","unit":"psi","value":""#.utf8)
            bytes.append(contentsOf: "\(line % 200)".utf8)
            bytes.append(contentsOf: "\"}}\n".utf8)
        }
        return bytes
    }
}

import ArgumentParser
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import Logging

/// `gangway-benchmark ingest`: a backend's bulk write of an entity set through the
/// storage's ingest (``ServerStorage/ingest(_:into:of:batch:limit:by:at:)``), in parts,
/// against the same number of rows written by one bulk `INSERT … SELECT` in the same run
/// (the database's own speed), with the process's resident memory while it runs.
struct IngestBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Benchmark ingesting an entity set in bulk; prints name: value lines."
    )

    @Option(help: "Rows the batch holds.")
    var rows = 1_000_000

    @Option(help: "Rows per part (one transaction each).")
    var part = 5_000

    @Option(
        help: """
            A PostgreSQL database to run on (postgres://user:password@host/db, no schema): the \
            benchmark makes a schema of its own there and drops it at the end. SQLite in a \
            temporary directory when none.
            """
    )
    var postgres: String?

    func validate() throws {
        guard rows >= 1, (1...50_000).contains(part) else {
            throw ValidationError("give --rows 1 or more and --part 1 to 50000")
        }
        if let postgres { try SyncBenchmark.checkPostgres(postgres) }
    }

    func run() async throws {
        print("ingest.config.rows: \(rows)")
        print("ingest.config.part: \(part)")
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
            let residentBefore = SyncBenchmark.residentMegabytes()
            let ingested = try await SyncBenchmark.timed { () async throws -> IngestProgress in
                var progress = IngestProgress()
                var first = 1
                while first <= rows {
                    let last = min(rows, first + part - 1)
                    let parts = (first...last).map { line in
                        IngestRow(line: line, id: "row-\(10_000_000 + line)", fields: Self.fields(line))
                    }
                    progress = try await storage.ingest(
                        parts,
                        into: "checks",
                        of: BenchmarkServer.appID,
                        batch: "benchmark",
                        limit: EntityLimits.entitiesPerSet,
                        by: "admin",
                        at: WallClock.now()
                    )
                    first = last + 1
                }
                return progress
            }
            let residentAfter = SyncBenchmark.residentMegabytes()
            guard ingested.value.written == rows, ingested.value.refusedCount == 0 else {
                throw ValidationError(
                    "ingested \(ingested.value.written) of \(rows), \(ingested.value.refusedCount) refused"
                )
            }
            Measure.report("ingest.storage.rows_per_s", Double(rows) / ingested.seconds, digits: 0)
            Measure.report("ingest.bulk_insert.rows_per_s", Double(rows) / bulk.seconds, digits: 0)
            Measure.report("ingest.storage.ratio_to_bulk_insert", bulk.seconds / ingested.seconds)
            Measure.report("ingest.storage.resident_growth_mb", residentAfter - residentBefore, digits: 1)
        }
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

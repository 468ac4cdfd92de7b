import ArgumentParser
import Foundation
import GangwayServer
import GangwaySystem
import Logging
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `gangway-benchmark backup`: a backup of a large SQLite server's database, taken by
/// `gangway admin backup` (the binary of the same build, a process of its own) while
/// devices read and an admin writes, against the same requests with no backup, in the
/// same run.
///
/// The database is filled to `--megabytes` with checks; then a device reads its settings
/// and an admin writes checks, each one request after another, for `--seconds` with no
/// backup (the idle figures), and again for as long as the backup takes. Each ratio is a
/// p99 during the backup over the idle p99.
struct BackupBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Benchmark requests answered while a large SQLite database is backed up; prints name: value lines."
    )

    @Option(help: "The size to fill the database to before the backup, in MB.")
    var megabytes = 1_000

    @Option(help: "Seconds of requests with no backup, for the idle figures.")
    var seconds = 10

    func validate() throws {
        guard (1...100_000).contains(megabytes), (1...600).contains(seconds) else {
            throw ValidationError("give --megabytes from 1 to 100000 and --seconds from 1 to 600")
        }
    }

    func run() async throws {
        // The backup is taken as an operator takes it: `gangway admin backup`, a process of
        // its own beside the server's.
        let gangway = ExternalTool(
            "gangway",
            searchPath: [Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("gangway").path]
                .compactMap { $0 }
        )
        guard gangway.executable != nil else {
            throw ValidationError(
                "the gangway binary of the same build is not beside gangway-benchmark "
                    + "(swift build -c release --product gangway)"
            )
        }
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        var app = BenchmarkServer.app()
        app.schemas = ["checks": SyncBenchmark.checksFields]
        let seed = ServerSeed(apps: [app], users: [BenchmarkServer.user])
        try await BenchmarkServer.run(seed: seed, bcryptCost: 4, logger: logger) { running in
            let configuration = running.server.configuration
            let database = configuration.sqlitePath
            var rows = 0
            let filled = try await SyncBenchmark.timed {
                while Self.megabytes(of: database) < Double(megabytes) {
                    try await SyncBenchmark.fill(running.server.storage, from: rows + 1, through: rows + 200_000)
                    rows += 200_000
                }
            }
            let base = running.url.absoluteString
            let device = try await ServerBenchmark.registerDevice(base: base)
            let admin = try String(contentsOf: configuration.adminTokenPath, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            print("backup.config.rows: \(rows)")
            print("backup.config.database_mb: \(String(format: "%.0f", Self.megabytes(of: database)))")
            print("backup.config.fill_s: \(String(format: "%.1f", filled.seconds))")
            print("backup.config.cores: \(ProcessInfo.processInfo.activeProcessorCount)")

            let idle = try await Self.requests(base: base, device: device, admin: admin) {
                try await Task.sleep(for: .seconds(seconds))
            }
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("gangway-benchmark-\(UUID().uuidString)")
                .appendingPathComponent("backup.sqlite")
            defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
            let during = try await Self.requests(base: base, device: device, admin: admin) {
                try await Self.backUp(gangway, dataDirectory: configuration.dataDirectory, to: file)
            }
            let backupBytes = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int64
            let backupMB = Double(backupBytes ?? 0) / 1_000_000
            Measure.report("backup.seconds", during.seconds, digits: 1)
            Measure.report("backup.mb_per_s", backupMB / during.seconds, digits: 0)
            Measure.report("backup.file_mb", backupMB, digits: 0)
            for (name, quiet, busy) in [
                ("read", idle.reads, during.reads), ("write", idle.writes, during.writes),
            ] {
                Measure.report("backup.\(name).idle_p50_ms", Self.percentile(quiet, 0.5))
                Measure.report("backup.\(name).idle_p99_ms", Self.percentile(quiet, 0.99))
                Measure.report("backup.\(name).during_p50_ms", Self.percentile(busy, 0.5))
                Measure.report("backup.\(name).during_p99_ms", Self.percentile(busy, 0.99))
                Measure.report("backup.\(name).during_count", Double(busy.count), digits: 0)
                Measure.report(
                    "backup.\(name).p99_ratio_to_idle",
                    Self.percentile(busy, 0.99) / Self.percentile(quiet, 0.99)
                )
            }
        }
    }

    /// Runs `gangway admin backup` of `dataDirectory` into `file`, and waits for it.
    private static func backUp(_ gangway: ExternalTool, dataDirectory: URL, to file: URL) async throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let output = try await gangway.run(["admin", "backup", "--data-dir", dataDirectory.path, file.path])
        guard let output, output.status == 0 else {
            throw ValidationError("gangway admin backup failed (exit status \(output?.status ?? -1))")
        }
    }

    /// The times of a device's reads and an admin's writes, each made one after another
    /// while `during` runs; and how long it ran.
    private static func requests(
        base: String,
        device: String,
        admin: String,
        during: () async throws -> Void
    ) async throws -> (reads: [Double], writes: [Double], seconds: Double) {
        let stop = StopFlag()
        async let reads = loop(stop) { _ in
            _ = try await ServerBenchmark.get("\(base)/apps/checks/settings", token: device)
        }
        async let writes = loop(stop) { index in
            _ = try await ServerBenchmark.send(
                "PUT",
                "\(base)/admin/apps/checks/data/checks/backup-\(UUID().uuidString.prefix(8))-\(index)",
                token: admin,
                body: #"{"fields": {"status": "open"}}"#
            )
        }
        let started = ContinuousClock.now
        try await during()
        let seconds = Measure.milliseconds(ContinuousClock.now - started) / 1_000
        stop.stop()
        return (try await reads, try await writes, seconds)
    }

    private static func loop(_ stop: StopFlag, _ request: (Int) async throws -> Void) async throws -> [Double] {
        var times: [Double] = []
        var index = 0
        while !stop.stopped {
            let started = ContinuousClock.now
            try await request(index)
            times.append(Measure.milliseconds(ContinuousClock.now - started))
            index += 1
        }
        return times
    }

    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    private static func megabytes(of database: URL) -> Double {
        let size = (try? FileManager.default.attributesOfItem(atPath: database.path))?[.size] as? Int64 ?? 0
        let log = (try? FileManager.default.attributesOfItem(atPath: database.path + "-wal"))?[.size] as? Int64 ?? 0
        return Double(size + log) / 1_000_000
    }
}

/// Tells request loops to stop.
private final class StopFlag: Sendable {
    private let flag = Mutex(false)
    func stop() { flag.withLock { $0 = true } }
    var stopped: Bool { flag.withLock { $0 } }
}

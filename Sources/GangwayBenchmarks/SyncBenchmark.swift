import ArgumentParser
import Foundation
import GangwayClient
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServices
import GangwaySystem
import Logging

/// `gangway-benchmark sync`: an entity set of an operation's size, synced over HTTP on
/// loopback. A device's first sync of `--rows` entities of ten fields each, in pages,
/// against reading the same pages straight from the storage's change log in the same
/// run; the process's resident memory while it serves one; then, in a set grown to
/// `--large-rows`, a device catching up with `--changes` changes, timed from the
/// device (the round trips of one sync, pages read and decoded).
struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Benchmark syncing a large entity set to a device; prints name: value lines."
    )

    @Option(help: "Entities the first sync downloads.")
    var rows = 100_000

    @Option(help: "Entities the set holds for the catch-up.")
    var largeRows = 1_000_000

    @Option(help: "Changes each catch-up brings.")
    var changes = 100

    @Option(help: "Catch-ups timed.")
    var repetitions = 20

    @Option(help: "Entities per page (1 to 5000).")
    var page = 5_000

    @Option(
        help: """
            A PostgreSQL database to run the server on (postgres://user:password@host/db, no \
            schema): the benchmark makes a schema of its own there and drops it at the end. \
            SQLite in a temporary directory when none.
            """
    )
    var postgres: String?

    func validate() throws {
        guard rows >= 1, largeRows >= rows, changes >= 1, changes <= rows, repetitions >= 1 else {
            throw ValidationError("give --rows 1 or more, --large-rows at least --rows, --changes 1 to --rows")
        }
        guard APILimits.syncPage.contains(page) else {
            throw ValidationError("--page is \(APILimits.syncPage.lowerBound) to \(APILimits.syncPage.upperBound)")
        }
        if let postgres { try Self.checkPostgres(postgres) }
    }

    func run() async throws {
        print("sync.config.rows: \(rows)")
        print("sync.config.large_rows: \(largeRows)")
        print("sync.config.changes: \(changes)")
        print("sync.config.page: \(page)")
        print("sync.config.storage: \(postgres == nil ? "sqlite" : "postgresql")")
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        var app = BenchmarkServer.app()
        app.schemas = ["checks": Self.checksFields]
        let seed = ServerSeed(apps: [app], users: [BenchmarkServer.user])
        try await Self.withDatabase(postgres, named: "sync") { database in
            try await measure(on: database, logger: logger, seed: seed)
        }
    }

    /// Runs `body` with the database to run on: on PostgreSQL (`postgres`), a schema of
    /// the run's own (`gangway_benchmark_NAME_…`), dropped at the end however the run
    /// ends; SQLite (`nil`) when there is none.
    static func withDatabase(
        _ postgres: String?,
        named name: String,
        _ body: (String?) async throws -> Void
    ) async throws {
        let schema = "gangway_benchmark_\(name)_" + UUID().uuidString.prefix(8).lowercased()
        let database = postgres.map { $0 + ($0.contains("?") ? "&" : "?") + "schema=" + schema }
        do {
            try await body(database)
        } catch {
            try? await drop(schema, of: database)
            throw error
        }
        try await drop(schema, of: database)
    }

    /// Refuses a `--postgres` that is not a database's URL, or one naming a schema (the
    /// benchmark makes its own).
    static func checkPostgres(_ postgres: String) throws {
        guard let url = URLComponents(string: postgres), ["postgres", "postgresql"].contains(url.scheme),
            !(url.queryItems ?? []).contains(where: { $0.name == "schema" })
        else {
            throw ValidationError("--postgres is a postgres:// URL of a database, without a schema")
        }
    }

    /// Drops the run's schema, when it ran on PostgreSQL.
    static func drop(_ schema: String, of database: String?) async throws {
        guard let database else { return }
        let driver = try PostgresDriver(
            url: database,
            logger: Logger(label: "gangway.benchmark", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        try await driver.dropSchemas(prefix: schema) { $0 == schema }
    }

    private func measure(on database: String?, logger: Logger, seed: ServerSeed) async throws {
        try await BenchmarkServer.run(
            seed: seed,
            bcryptCost: 4,
            logger: logger,
            configure: { $0.postgresURL = database }
        ) { running in
            let storage = running.server.storage
            let client = MobileServicesClient(serverURL: running.url)
            let session = try await client.signIn(
                appID: BenchmarkServer.appID,
                username: BenchmarkServer.username,
                password: BenchmarkServer.password,
                deviceID: "benchmark-device"
            )
            _ = try await client.registerDevice(
                appID: BenchmarkServer.appID,
                token: session.token,
                device: DeviceIdentity(deviceID: "benchmark-device", deviceName: "benchmark", appVersion: "1.0.0")
            )
            try await Self.fill(storage, from: 1, through: rows)

            // The baseline: the same pages, read straight from the change log.
            let direct = try await Self.timed {
                var after: Int64 = 0
                var read = 0
                while true {
                    let log = try await storage.entityLog(
                        appID: BenchmarkServer.appID,
                        entitySet: "checks",
                        after: after,
                        through: nil,
                        includingRemovals: false,
                        limit: page
                    )
                    read += log.entries.count
                    guard log.hasMore, let last = log.entries.last else { return read }
                    after = last.position
                }
            }
            // What serving a first sync costs in memory: the process's growth through a
            // download that keeps nothing (the server's pages, and the client's as each is
            // read), first, before anything else raises the high-water mark.
            let residentBefore = Self.residentMegabytes()
            _ = try await Self.sync(client, token: session.token, from: nil, page: page, keep: false)
            let residentAfter = Self.residentMegabytes()
            let synced = try await Self.timed {
                try await Self.sync(client, token: session.token, from: nil, page: page)
            }
            guard synced.value.count == rows, direct.value == rows else {
                throw ValidationError("read \(synced.value.count) and \(direct.value) entities of \(rows)")
            }
            Measure.report("sync.initial.download_rows_per_s", Double(rows) / synced.seconds, digits: 0)
            Measure.report("sync.initial.storage_rows_per_s", Double(rows) / direct.seconds, digits: 0)
            Measure.report("sync.initial.download_ratio_to_storage", direct.seconds / synced.seconds)
            Measure.report("sync.initial.serving_resident_growth_mb", residentAfter - residentBefore, digits: 1)
            try await Self.measureLocal(synced.value.kept)

            // The device's own code: the first sync kept (a sealed record per entity) and
            // its local store filled; then catch-ups of `changes` entities, each kept and
            // applied to the local store by the change alone.
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("gangway-benchmark-device-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let device = try await BenchmarkDevice.signedIn(
                at: running.url,
                session: session,
                in: directory,
                logger: logger
            )
            defer { device.close() }
            let first = try await Self.timed { try await device.sync("checks") }
            guard first.value.upserted.count == rows, try device.local.count(LocalQuery("checks")) == rows else {
                throw ValidationError("the device kept \(first.value.upserted.count) entities of \(rows)")
            }
            Measure.report("sync.initial.rows_per_s", Double(rows) / first.seconds, digits: 0)
            Measure.report("sync.initial.ratio_to_download", synced.seconds / first.seconds)
            // The baseline of each catch-up: a bare client fetching the same change, from a
            // cursor of its own, in the same round.
            var bareCursor = synced.value.cursor
            var bare: [Double] = []
            var applied: [Double] = []
            for round in 0..<repetitions {
                try await change(storage, round: round, of: rows)
                bare.append(try await catchUp(client, token: session.token, from: &bareCursor))
                let caughtUp = try await Self.timed { try await device.sync("checks") }
                guard caughtUp.value.upserted.count == changes, !caughtUp.value.replaced else {
                    throw ValidationError("a device catch-up brought \(caughtUp.value.upserted.count) of \(changes)")
                }
                applied.append(caughtUp.seconds * 1_000)
            }
            let done = LocalQuery("checks", where: [.init("status", .equals, "done")])
            guard try device.local.count(done) > 0 else { throw ValidationError("no change reached the local store") }
            Measure.report("sync.catch_up.device_p50_ms", Measure.median(applied))
            Measure.report("sync.catch_up.device_p90_ms", Measure.percentile(applied, 0.9))
            Measure.report("sync.catch_up.device_round_trip_p50_ms", Measure.median(bare))
            Measure.report("sync.catch_up.device_ratio_to_round_trip", Measure.median(applied) / Measure.median(bare))

            try await Self.fill(storage, from: rows + 1, through: largeRows, after: repetitions * changes)
            var cursor = try await Self.sync(client, token: session.token, from: nil, page: page, keep: false).cursor
            var times: [Double] = []
            for round in 0..<repetitions {
                try await change(storage, round: repetitions + round, of: largeRows)
                times.append(try await catchUp(client, token: session.token, from: &cursor))
            }
            Measure.report("sync.catch_up.p50_ms", Measure.median(times))
            Measure.report("sync.catch_up.p90_ms", Measure.percentile(times, 0.9))
        }
    }

    /// The checks' ten fields, as the set's schema declares them.
    static let checksFields = [
        EntityField("aircraft", .text), EntityField("station", .text, indexed: true),
        EntityField("stand", .text), EntityField("kind", .text), EntityField("item", .text),
        EntityField("status", .text, indexed: true), EntityField("value", .integer),
        EntityField("unit", .text), EntityField("due", .dateTime, indexed: true), EntityField("note", .text),
    ]

    /// The device's local store: the synced entities filled into a table typed by the
    /// set's schema, then asked for a page of one station's checks by an indexed field,
    /// and counted by two, each timed alone.
    static func measureLocal(_ entities: [AppEntity]) async throws {
        let schema = try EntitySchema(fields: checksFields)
        let local = try LocalEntityStore()
        let shown = entities.map { OfflineWork.ShownEntity(entity: $0) }
        let filled = try await Self.timed { try local.replace("checks", schema: schema, with: shown) }
        Measure.report("sync.local.fill_rows_per_s", Double(entities.count) / filled.seconds, digits: 0)
        var pages: [Double] = []
        var counts: [Double] = []
        for index in 0..<200 {
            let station = LocalQuery.Filter("station", .equals, "\(index % 40)")
            let query = LocalQuery("checks", where: [station], sortedBy: [.init("due")], limit: 50)
            let page = try await Self.timed { try local.entities(query) }
            guard !page.value.isEmpty || entities.count < 40 else { throw ValidationError("a station had no checks") }
            pages.append(page.seconds * 1_000)
            let both = LocalQuery("checks", where: [station, .init("status", .equals, "open")])
            counts.append(try await Self.timed { try local.count(both) }.seconds * 1_000)
        }
        Measure.report("sync.local.query_page_p50_ms", Measure.median(pages))
        Measure.report("sync.local.query_page_p90_ms", Measure.percentile(pages, 0.9))
        Measure.report("sync.local.count_p50_ms", Measure.median(counts))
    }

    /// A bare client's catch-up from `cursor`, which it moves on: the milliseconds it
    /// took. It must bring the `changes` of the round.
    private func catchUp(
        _ client: MobileServicesClient,
        token: SessionToken,
        from cursor: inout String
    ) async throws -> Double {
        let from = cursor
        let caughtUp = try await Self.timed {
            try await Self.sync(client, token: token, from: from, page: page, keep: false)
        }
        guard caughtUp.value.count == changes else {
            throw ValidationError("a catch-up brought \(caughtUp.value.count) changes of \(changes)")
        }
        cursor = caughtUp.value.cursor
        return caughtUp.seconds * 1_000
    }

    /// Writes `changes` of the first `count` entities, as an admin's puts: each one's
    /// status set to done, spread over the set.
    private func change(_ storage: ServerStorage, round: Int, of count: Int) async throws {
        for index in 0..<changes {
            let entity = EntityRecord(
                appID: BenchmarkServer.appID,
                entitySet: "checks",
                id: Self.id(1 + (round * changes + index) * 7919 % count),
                fields: ["status": "done", "note": "round \(round)"],
                updatedAt: WallClock.now(),
                updatedBy: "admin"
            )
            _ = try await storage.putEntity(entity, limit: EntityLimits.entitiesPerSet)
        }
    }

    /// One sync from `cursor`: every page until the server says it is done. Returns how
    /// many entities and removals it brought, and the cursor to keep.
    static func sync(
        _ client: MobileServicesClient,
        token: SessionToken,
        from cursor: String?,
        page: Int,
        keep: Bool = true
    ) async throws -> (count: Int, cursor: String, kept: [AppEntity]) {
        var cursor = cursor
        var count = 0
        var kept: [String: AppEntity] = [:]
        while true {
            let changes = try await client.appDataChanges(
                appID: BenchmarkServer.appID,
                entitySet: "checks",
                cursor: cursor,
                limit: page,
                token: token
            )
            count += changes.entities.count + changes.removedIDs.count
            if keep { for entity in changes.entities { kept[entity.id] = entity } }
            cursor = changes.cursor
            if !changes.more { return (count, changes.cursor, Array(kept.values)) }
        }
    }

    /// Writes the entities numbered `first` through `last` in statements of 50,000, as a
    /// bulk load would, each with ten fields and at its own position: its number, moved
    /// past the `written` positions that writes since the last fill took.
    static func fill(_ storage: ServerStorage, from first: Int, through last: Int, after written: Int = 0) async throws
    {
        var start = first
        while start <= last {
            let end = min(last, start + 49_999)
            _ = try await storage.driver.write(
                """
                WITH RECURSIVE n(i) AS (SELECT \(start) UNION ALL SELECT i + 1 FROM n WHERE i < \(end))
                INSERT INTO entities (app_id, entity_set, id, fields, version, updated_at, updated_by, position)
                SELECT 'checks', 'checks', 'check-' || (10000000 + i),
                    '{"aircraft":"A320 F-G' || (i % 997) || '","station":"' || (i % 40) || '","stand":"' || (i % 60)
                    || '","kind":"walkaround","item":"tyre pressure","status":"open","value":"' || (i % 200)
                    || '","unit":"psi","due":"2026-12-03T' || (10 + i % 12) || ':00:00Z","note":"none"}',
                    1, 0, 'admin', i + \(written) FROM n
                """
            )
            start = end + 1
        }
        _ = try await storage.driver.write(
            """
            INSERT INTO entity_sets (app_id, entity_set, last_position, live_count) VALUES ('checks', 'checks', \(last + written), \(last))
            ON CONFLICT (app_id, entity_set) DO UPDATE SET last_position = excluded.last_position,
                live_count = excluded.live_count
            """
        )
    }

    static func id(_ number: Int) -> String { "check-\(10_000_000 + number)" }

    /// `body`'s value and the wall time it took, in seconds.
    static func timed<Value>(_ body: () async throws -> Value) async rethrows -> (value: Value, seconds: Double) {
        let start = ContinuousClock.now
        let value = try await body()
        return (value, Measure.milliseconds(ContinuousClock.now - start) / 1_000)
    }

    /// A process's resident memory (this one's: server and device together), in MB.
    static func residentMegabytes(of process: String = "self") -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return .nan }
        return kilobytes / 1_024
    }
}

import ArgumentParser
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `gangway-benchmark deliver`: devices' changes delivered to the company's backend by a
/// data source that delivers them (the server's own delivery loop, as it runs while
/// serving): `--changes` changes over `--entities` entities, each entity's in order,
/// to a backend that answers each after `--answer-ms` and counts each idempotency key it
/// applies (exactly once: every key once). The baseline, in the same run, is applying
/// the same changes straight through the server's storage (no backend), in batches of
/// an upload's size. The backend is a bare Hummingbird route in this process.
struct DeliveryBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: "Benchmark delivering devices' changes to a backend; prints name: value lines."
    )

    @Option(help: "Changes to deliver.")
    var changes = 10_000

    @Option(help: "Entities they are spread over (each gets changes / entities, delivered in order).")
    var entities = 1_000

    @Option(help: "How long the backend takes to answer, in milliseconds.")
    var answerMs = 1

    @Option(help: "A PostgreSQL database to run on (postgres://user:password@host/db, no schema); SQLite when none.")
    var postgres: String?

    func validate() throws {
        guard (1...100_000).contains(entities), changes >= entities, (0...1_000).contains(answerMs) else {
            throw ValidationError("give --entities 1 to 100000, --changes at least as many, --answer-ms 0 to 1000")
        }
        if let postgres { try SyncBenchmark.checkPostgres(postgres) }
    }

    /// What the backend saw: each idempotency key's applications.
    actor Backend {
        private(set) var applied: [String: Int] = [:]
        func apply(_ key: String) { applied[key, default: 0] += 1 }
    }

    func run() async throws {
        print("deliver.config.changes: \(changes)")
        print("deliver.config.entities: \(entities)")
        print("deliver.config.answer_ms: \(answerMs)")
        print("deliver.config.storage: \(postgres == nil ? "sqlite" : "postgresql")")
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let settings = Components.Schemas.AppSettingsUpdate(
            dataSettings: .init(
                entitySets: .init(additionalProperties: [
                    "checks": .init(writableFields: ["status", "reading"], allowsCreation: false),
                    "direct": .init(writableFields: ["status", "reading"], allowsCreation: false),
                ])
            )
        )
        let seed = ServerSeed(
            apps: [BenchmarkServer.app(settings: settings)],
            users: [BenchmarkServer.user],
            entities: ["checks", "direct"].flatMap { set in
                (0..<entities).map {
                    SeedEntity(app: "checks", entitySet: set, id: "check-\($0)", fields: ["status": "open"])
                }
            }
        )
        let backend = Backend()
        let ports = PortBox()
        let router = Router()
        let wait = answerMs
        // No read of the set: its data source only delivers here.
        router.get("/odata/Checks") { _, _ in Response(status: .notFound) }
        router.patch("/odata/:entity") { request, context in
            let body = try await request.body.collect(upTo: 1 << 16)
            if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
            await backend.apply(request.headers[HTTPField.Name("Idempotency-Key")!] ?? "")
            // The entity as the backend holds it: the fields sent, and its key.
            let entity = context.parameters.get("entity") ?? ""
            let id = entity.dropFirst("Checks('".count).dropLast(2)
            var answer = String(buffer: body)
            answer.removeLast()
            answer += #","ID":"\#(id)"}"#
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: answer))
            )
        }
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in await ports.set(\.bare, channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let all = Self.changes(count: changes, over: entities)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await application.run() }
            let url = "http://127.0.0.1:\(try await ports.wait(\.bare))/odata"
            try await SyncBenchmark.withDatabase(postgres, named: "deliver") { database in
                try await measure(all, url: url, seed: seed, backend: backend, logger: logger, database: database)
            }
            group.cancelAll()
        }
    }

    private func measure(
        _ all: [Change],
        url: String,
        seed: ServerSeed,
        backend: Backend,
        logger: Logger,
        database: String?
    ) async throws {
        let (delivered, direct): (Double, Double) = try await BenchmarkServer.run(
            seed: seed,
            bcryptCost: 4,
            logger: logger,
            configure: { $0.postgresURL = database }
        ) { running in
            let storage = running.server.storage
            let token = try String(contentsOf: running.server.configuration.adminTokenPath, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let app = "\(running.url.absoluteString)/admin/apps/\(BenchmarkServer.appID)"
            // The baseline first, on a set of its own that delivers nothing.
            let direct = try await SyncBenchmark.timed {
                try await Self.apply(
                    all.map { change in
                        var copy = change
                        copy.entitySet = "direct"
                        copy.id = UUID()
                        copy.registrationID = "benchmark-direct"
                        return copy
                    },
                    storage,
                    limit: 10_000_000,
                    sets: ["direct"]
                )
            }
            _ = try await ServerBenchmark.send(
                "PUT",
                "\(app)/destinations/erp",
                token: token,
                body:
                    #"{"url": "\#(url)", "authentication": "credential", "credentialHeader": "X-API-Key", "credential": "benchmark"}"#
            )
            _ = try await ServerBenchmark.send(
                "PUT",
                "\(app)/data-sources/checks",
                token: token,
                body: #"{"destination": "erp", "path": "/Checks", "deliversChanges": true}"#
            )
            // Queued as uploads queue them, then delivered by the server's own loop.
            let queued = try await Self.apply(all, storage, limit: 10_000_000, sets: ["checks"])
            guard queued.allSatisfy({ $0.outcome == .held }) else {
                let other = queued.first { $0.outcome != .held } ?? queued[0]
                throw ValidationError(
                    "a change was not held: \(other.outcome.rawValue) \(other.rejection?.message ?? "")"
                )
            }
            let delivered = try await SyncBenchmark.timed { () async throws -> Void in
                while try await !storage.deliveries(appID: BenchmarkServer.appID, limit: 1).isEmpty {
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            return (delivered.seconds, direct.seconds)
        }
        let applied = await backend.applied
        guard applied.count == all.count, applied.values.allSatisfy({ $0 == 1 }) else {
            throw ValidationError("the backend applied \(applied.count) keys of \(all.count), some not once")
        }
        Measure.report("deliver.changes_per_s", Double(all.count) / delivered, digits: 0)
        Measure.report("deliver.direct.changes_per_s", Double(all.count) / direct, digits: 0)
        Measure.report("deliver.ratio_to_direct", direct / delivered)
        Measure.report("deliver.applied_more_than_once", Double(applied.values.filter { $0 > 1 }.count), digits: 0)
    }

    /// Ends `changes` through the storage, an upload's worth at a time.
    static func apply(
        _ changes: [Change],
        _ storage: ServerStorage,
        limit: Int,
        sets: Set<String>
    ) async throws
        -> [ChangeResult]
    {
        var results: [ChangeResult] = []
        for start in stride(from: 0, to: changes.count, by: EntityLimits.changesPerUpload) {
            let batch = changes[start..<min(start + EntityLimits.changesPerUpload, changes.count)]
            results += try await storage.applyChanges(
                batch.map {
                    ChangeApplication(
                        appID: BenchmarkServer.appID,
                        change: $0,
                        carrier: "alice",
                        receivedAt: WallClock.now()
                    )
                },
                limit: limit
            ) { change, current throws(ChangeRejection) in
                try FieldMerge.merge(change, into: current)
            }
        }
        return results
    }

    /// `count` changes over `entities` checks, round after round, each based on the one
    /// before it.
    static func changes(count: Int, over entities: Int) -> [Change] {
        (0..<count).map { index in
            Change(
                registrationID: "benchmark-registration",
                author: BenchmarkServer.username,
                sequence: Int64(index + 1),
                entitySet: "checks",
                entityID: "check-\(index % entities)",
                baseVersion: 1,
                fields: ["status": index.isMultiple(of: 2) ? "done" : "open", "reading": "\(index) kg"],
                madeAt: WallClock.now()
            )
        }
    }
}

import ArgumentParser
import Foundation
import GangwayPolicy
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServices
import GangwayStore
import GangwaySystem
import HTTPTypes
import Logging

/// `gangway-benchmark offline`: recording changes on the device, and uploading ten
/// thousand of them to a server on loopback, against applying the same signed changes
/// straight through the server's storage layer (signatures checked, merged field by
/// field, in batches of an upload's size), measured in the same run on a second server
/// with the same seed.
struct OfflineBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline",
        abstract: "Benchmark the outbox and the upload of pending changes; prints name: value lines."
    )

    @Option(help: "Pending changes to record and upload.")
    var changes = 10_000

    @Option(help: "Checks they are spread over (each gets changes / entities of them), at most 1000.")
    var entities = 1_000

    static let rules = EntitySetRules(writableFields: ["status", "reading", "note"])

    func run() async throws {
        guard (1...1_000).contains(entities), changes >= entities else {
            throw ValidationError("--entities must be 1 to 1000, and --changes at least as many")
        }
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        // Devices may write a check's status, reading and note, and create none.
        let settings = Components.Schemas.AppSettingsUpdate(
            dataSettings: .init(
                entitySets: .init(additionalProperties: [
                    "checks": .init(writableFields: ["status", "reading", "note"], allowsCreation: false)
                ])
            )
        )
        let seed = ServerSeed(
            apps: [BenchmarkServer.app(settings: settings)],
            users: [BenchmarkServer.user],
            entities: (0..<entities).map {
                SeedEntity(app: "checks", entitySet: "checks", id: "check-\($0)", fields: ["status": "open"])
            }
        )
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        print("offline.config.changes: \(changes)")
        print("offline.config.entities: \(entities)")

        let keys = OfflineKeys()
        var recorded: [SignedChange] = []
        let (record, upload, uploadProcessor) = try await BenchmarkServer.run(
            seed: seed,
            bcryptCost: 4,
            logger: logger
        ) { server in
            let client = MobileServicesClient(serverURL: server.url)
            let session = try await client.signIn(
                appID: "checks",
                username: "alice",
                password: BenchmarkServer.password,
                deviceID: "benchmark-device"
            )
            let registration = try await client.registerDevice(
                appID: "checks",
                token: session.token,
                device: DeviceIdentity(deviceID: "benchmark-device", deviceName: "benchmark", appVersion: "1.0.0"),
                changeKey: keys.signing.verifyingKey
            )
            let settings = try await client.settings(appID: "checks", token: session.token)
            guard let sealing = settings.changeSealingKey else {
                throw ValidationError("the server sent no sealing key")
            }
            let server = try SealingPublicKey(x963Representation: sealing)
            let outbox = try Outbox(directory: directory, deviceKeys: InMemoryDeviceKeyStore())
            let author = keys.author(name: "alice", registrationID: registration.registrationID)

            // Round after round over the checks, each change based on the one before it,
            // as a device that edits each check several times offline.
            let clock = ContinuousClock()
            let started = clock.now
            for index in 0..<changes {
                let round = Int64(index / entities)
                recorded.append(
                    try outbox.record(
                        by: author,
                        entitySet: "checks",
                        entityID: "check-\(index % entities)",
                        baseVersion: 1 + round,
                        fields: ["status": index.isMultiple(of: 2) ? "done" : "open", "reading": "\(index) kg"],
                        madeAt: WallClock.now(),
                        sealingTo: server
                    )
                )
            }
            let record = clock.now - started

            let uploadStarted = clock.now
            let processorStarted = Measure.processorMilliseconds()
            let report = try await OutboxSender(client: client, appID: "checks", outbox: outbox)
                .sendAll(token: session.token)
            let upload = clock.now - uploadStarted
            let processor = Measure.processorMilliseconds() - processorStarted
            guard report.answered == [.applied: changes] else {
                throw ValidationError("the server did not apply every change: \(report.answered)")
            }
            return (record, upload, processor)
        }

        let (direct, directProcessor) = try await BenchmarkServer.run(seed: seed, bcryptCost: 4, logger: logger) {
            server in
            let storage = server.server.storage
            let key = keys.signing.verifyingKey
            let clock = ContinuousClock()
            let started = clock.now
            let processorStarted = Measure.processorMilliseconds()
            // In batches of an upload's size, as the server applies an upload.
            for start in stride(from: 0, to: recorded.count, by: EntityLimits.changesPerUpload) {
                let batch = recorded[start..<min(start + EntityLimits.changesPerUpload, recorded.count)]
                guard batch.allSatisfy({ $0.isSigned(by: key) }) else {
                    throw ValidationError("a change's signature did not check")
                }
                let results = try await storage.applyChanges(
                    batch.map {
                        ChangeApplication(
                            appID: "checks",
                            change: $0.change,
                            carrier: "alice",
                            receivedAt: WallClock.now()
                        )
                    },
                    limit: 1_000
                ) { change, current throws(ChangeRejection) in
                    try Self.rules.check(change)
                    return try FieldMerge.merge(change, into: current)
                }
                guard results.allSatisfy({ $0.outcome == .applied }) else {
                    throw ValidationError("a change was not applied directly")
                }
            }
            return (clock.now - started, Measure.processorMilliseconds() - processorStarted)
        }

        let uploadMilliseconds = Measure.milliseconds(upload)
        let directMilliseconds = Measure.milliseconds(direct)
        Measure.report("offline.record_change_us", Measure.milliseconds(record) * 1_000 / Double(changes))
        Measure.report("offline.upload_10k_ms", uploadMilliseconds * 10_000 / Double(changes))
        Measure.report("offline.direct_10k_ms", directMilliseconds * 10_000 / Double(changes))
        Measure.report("offline.upload.ratio_to_direct", uploadMilliseconds / directMilliseconds)
        // Processor time of both sides (device and server share the process), all cores.
        Measure.report("offline.upload_10k_cpu_ms", uploadProcessor * 10_000 / Double(changes))
        Measure.report("offline.direct_10k_cpu_ms", directProcessor * 10_000 / Double(changes))
    }
}

import ArgumentParser
import Foundation
import GangwayServer
import GangwayServerStorage
import Hummingbird
import Logging
import ServiceLifecycle

/// `gangway-benchmark tracing`: what a span of every request, statement and call costs,
/// every trace sampled and exported (or the share `--sample-ratio` says). Two servers in one run, alike but for the tracer
/// `serve --otlp-endpoint` gives (``GangwayServer/TraceExport``, OTLP over HTTP to a
/// receiver on loopback that takes every export and keeps nothing), loaded in turns
/// (``TurnLoad``).
struct TracingBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracing",
        abstract: "Benchmark two servers, every trace exported by OTLP and none, in turns; prints name: value lines."
    )

    @OptionGroup var load: TurnLoad

    @Option(
        name: .customLong("sample-ratio"),
        help: "The share of traces recorded, 0 to 1 (serve --trace-sample-ratio)."
    )
    var sampleRatio = 1.0

    @Flag(
        name: .customLong("discard"),
        help: """
            Make every span and send none (the export never runs; its queue, once full, drops \
            each span as it ends): the instrumentation's own cost.
            """
    )
    var discard = false

    func run() async throws {
        let wrk = try ServerBenchmark.wrk()
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let seed = ServerSeed(
            apps: [BenchmarkServer.app()],
            users: [BenchmarkServer.user],
            entities: ServerBenchmark.checks
        )
        // The collector: every export answered 200 (an empty ExportTraceServiceResponse)
        // and counted.
        let exports = ExportCount()
        let router = Router()
        router.post("/v1/traces") { request, _ in
            let body = try await request.body.collect(upTo: 64 << 20)
            await exports.add(body.readableBytes)
            return Response(status: .ok, headers: [.contentType: "application/x-protobuf"])
        }
        let ports = PortBox()
        let collector = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in await ports.set(\.bare, channel.localAddress?.port ?? 0) },
            logger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await collector.run() }
            let export = try TraceExport(
                endpoint: "http://127.0.0.1:\(try await ports.wait(\.bare))",
                sampleRatio: sampleRatio
            )
            print("tracing.config.sample_ratio: \(sampleRatio)")
            print("tracing.config.exporter: \(discard ? "none (spans discarded)" : "OTLP")")
            // Discarding: the export's service never runs, so its queue fills and every
            // span after is dropped as it ends (counted, for a warning no one sends).
            let (tracer, service) = export.start(logger: logger)
            if !discard { group.addTask { try await service.run() } }
            try await BenchmarkServer.run(seed: seed, bcryptCost: 4, logger: logger) { off in
                try await BenchmarkServer.run(seed: seed, bcryptCost: 4, logger: logger, tracer: tracer) { on in
                    try await load.compare("tracing", off: off, on: on, wrk: wrk)
                }
            }
            let (count, bytes) = await exports.totals
            Measure.report("tracing.exports", Double(count), digits: 0)
            Measure.report("tracing.exported_mib", Double(bytes) / Double(1 << 20), digits: 1)
            group.cancelAll()
        }
    }

    /// The exports the collector took, and their bytes.
    private actor ExportCount {
        private(set) var totals = (count: 0, bytes: 0)

        func add(_ bytes: Int) { totals = (totals.count + 1, totals.bytes + bytes) }
    }
}

import ArgumentParser
import Foundation
import GangwayServer
import GangwaySystem
import Logging

/// `gangway-benchmark metrics`: what recording the operator's figures costs. Two servers
/// in one run, alike but for a metrics listener (as `serve --metrics-port` has), loaded in
/// turns (``TurnLoad``).
struct MetricsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Benchmark two servers, with metrics recorded and without, in turns; prints name: value lines."
    )

    @OptionGroup var load: TurnLoad

    func run() async throws {
        let wrk = try ServerBenchmark.wrk()
        var logger = Logger(label: "gangway.benchmark")
        logger.logLevel = .error
        let seed = ServerSeed(
            apps: [BenchmarkServer.app()],
            users: [BenchmarkServer.user],
            entities: ServerBenchmark.checks
        )
        try await BenchmarkServer.run(seed: seed, bcryptCost: 4, logger: logger) { off in
            try await BenchmarkServer.run(
                seed: seed,
                bcryptCost: 4,
                logger: logger,
                configure: { $0.metricsAddress = .init(host: "127.0.0.1", port: 0) }
            ) { on in
                try await load.compare("metrics", off: off, on: on, wrk: wrk)
            }
        }
    }
}

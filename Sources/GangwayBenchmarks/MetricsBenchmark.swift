import ArgumentParser
import Foundation
import GangwayServer
import GangwaySystem
import Logging

/// `gangway-benchmark metrics`: what recording the operator's figures costs. Two servers
/// in one run, alike but for a metrics listener (as `serve --metrics-port` has), loaded in
/// turns by `wrk` on the settings and the data routes, each first in every other round;
/// each ratio is the median
/// throughput with metrics over the median without, so the machine's drift between runs
/// is out of it.
struct MetricsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Benchmark two servers, with metrics recorded and without, in turns; prints name: value lines."
    )

    @Option(help: "Concurrent connections wrk keeps open.")
    var connections = 50

    @Option(help: "Seconds of load per measurement (after one second of warm-up).")
    var seconds = 10

    @Option(help: "Rounds: the two servers are loaded in turns this many times; the medians are reported.")
    var rounds = 3

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
                print("metrics.config.connections: \(connections)")
                print("metrics.config.seconds: \(seconds)")
                print("metrics.config.rounds: \(rounds)")
                let servers = [("off", off), ("on", on)]
                var tokens: [String: String] = [:]
                for (name, server) in servers {
                    tokens[name] = try await ServerBenchmark.registerDevice(base: server.url.absoluteString)
                }
                for route in ["settings", "data/checks"] {
                    var throughput: [String: [Double]] = [:]
                    for round in 0..<max(1, rounds) {
                        // Each goes first in turn: neither always runs on a warmer machine.
                        for (name, server) in round.isMultiple(of: 2) ? servers : servers.reversed() {
                            let load = try await ServerBenchmark.load(
                                wrk: wrk,
                                url: server.url.absoluteString + "/apps/checks/" + route,
                                token: tokens[name],
                                connections: connections,
                                seconds: seconds
                            )
                            guard load.errors == 0 else {
                                throw ValidationError("\(route) answered \(load.errors) errors")
                            }
                            throughput[name, default: []].append(load.requestsPerSecond)
                        }
                    }
                    let label = route == "settings" ? "settings" : "data"
                    let off = Measure.median(throughput["off"] ?? [])
                    let on = Measure.median(throughput["on"] ?? [])
                    Measure.report("metrics.\(label).off_rps", off, digits: 0)
                    Measure.report("metrics.\(label).on_rps", on, digits: 0)
                    Measure.report("metrics.\(label).ratio_on_to_off", on / off, digits: 3)
                }
            }
        }
    }
}

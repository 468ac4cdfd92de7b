import ArgumentParser
import Foundation
import GangwaySystem

/// Two servers alike but for one feature, loaded in turns by `wrk` on the settings and
/// the data routes, each first in every other round; each ratio is the median throughput
/// with the feature over the median without, so the machine's drift between runs is out
/// of it. What `metrics` and `tracing` measure.
struct TurnLoad: ParsableArguments {
    @Option(help: "Concurrent connections wrk keeps open.")
    var connections = 50

    @Option(help: "Seconds of load per measurement (after one second of warm-up).")
    var seconds = 10

    @Option(help: "Rounds: the two servers are loaded in turns this many times; the medians are reported.")
    var rounds = 3

    /// Loads `off` and `on` in turns, and prints `PREFIX.config.*` and, per route,
    /// `PREFIX.ROUTE.off_rps`, `on_rps` and `ratio_on_to_off`.
    func compare(
        _ prefix: String,
        off: BenchmarkServer.Running,
        on: BenchmarkServer.Running,
        wrk: ExternalTool
    ) async throws {
        print("\(prefix).config.connections: \(connections)")
        print("\(prefix).config.seconds: \(seconds)")
        print("\(prefix).config.rounds: \(rounds)")
        let servers = [("off", off), ("on", on)]
        var tokens: [String: String] = [:]
        for (name, server) in servers {
            tokens[name] = try await ServerBenchmark.registerDevice(base: server.url.absoluteString)
        }
        for route in ["settings", "data/checks"] {
            var throughput: [String: [Double]] = [:]
            var processor: [String: [Double]] = [:]
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
                    processor[name, default: []].append(load.processorMicroseconds)
                }
            }
            let label = route == "settings" ? "settings" : "data"
            let off = Measure.median(throughput["off"] ?? [])
            let on = Measure.median(throughput["on"] ?? [])
            Measure.report("\(prefix).\(label).off_rps", off, digits: 0)
            Measure.report("\(prefix).\(label).on_rps", on, digits: 0)
            Measure.report("\(prefix).\(label).ratio_on_to_off", on / off, digits: 3)
            // The processor time per request, the server's alone: the throughput a server
            // bound by its processors keeps is their inverse ratio.
            let offProcessor = Measure.median(processor["off"] ?? [])
            let onProcessor = Measure.median(processor["on"] ?? [])
            Measure.report("\(prefix).\(label).off_cpu_us", offProcessor, digits: 1)
            Measure.report("\(prefix).\(label).on_cpu_us", onProcessor, digits: 1)
            Measure.report("\(prefix).\(label).cpu_ratio_off_to_on", offProcessor / onProcessor, digits: 3)
        }
    }
}

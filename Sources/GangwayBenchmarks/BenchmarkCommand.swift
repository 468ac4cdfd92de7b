import ArgumentParser

/// `gangway-benchmark`: measurements printed as `name: value` lines, every ratio taken
/// against a baseline measured in the same run. Build it in release mode
/// (`scripts/benchmark`), never judge a debug build.
@main
struct BenchmarkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gangway-benchmark",
        abstract: "Measure Gangway against baselines measured in the same run.",
        subcommands: [
            StoreBenchmark.self, FlowBenchmark.self, ServerBenchmark.self, SignInFloodBenchmark.self,
            OfflineBenchmark.self, SyncBenchmark.self, LiveBenchmark.self, ConsoleBenchmark.self,
            DestinationBenchmark.self, IngestBenchmark.self, PullBenchmark.self, DeliveryBenchmark.self,
            NoticeBenchmark.self, BackupBenchmark.self, MetricsBenchmark.self, TracingBenchmark.self,
        ]
    )
}

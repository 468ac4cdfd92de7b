import ArgumentParser
import Foundation
import GangwayServer
import Hummingbird
import Logging
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `gangway-benchmark destinations`: what the server adds when a device reaches its
/// company's backend through a destination, against calling the backend directly, in the
/// same run: the latency of a small answer (request after request on one keep-alive
/// connection each), and the throughput of a large one. The backend is a bare Hummingbird
/// route in this process; the proxied request carries the person's identity, signed for it.
struct DestinationBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "destinations",
        abstract: "Benchmark a destination against calling its backend directly; prints name: value lines."
    )

    @Option(help: "Requests per latency measurement.")
    var requests = 500

    @Option(help: "Megabytes of the large answer.")
    var megabytes = 32

    @Option(help: "Large answers per throughput measurement.")
    var downloads = 5

    @Option(help: "Rounds: direct and proxied alternate this many times; the medians are reported.")
    var rounds = 3

    func validate() throws {
        guard requests >= 20 else { throw ValidationError("--requests is at least 20.") }
        guard (1...512).contains(megabytes) else { throw ValidationError("--megabytes is 1 to 512.") }
        guard (1...100).contains(downloads) else { throw ValidationError("--downloads is 1 to 100.") }
        guard (1...20).contains(rounds) else { throw ValidationError("--rounds is 1 to 20.") }
    }

    func run() async throws {
        try await BenchmarkServer.runQuietly { server, logger in try await measure(server, logger: logger) }
    }

    private func measure(_ running: BenchmarkServer.Running, logger: Logger) async throws {
        let ports = PortBox()
        let small = ByteBuffer(repeating: UInt8(ascii: "s"), count: 64)
        let large = ByteBuffer(repeating: UInt8(ascii: "l"), count: megabytes << 20)
        let router = Router()
        router.get("/small") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: small))
        }
        router.get("/large") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: large))
        }
        let backend = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in await ports.set(\.bare, channel.localAddress?.port ?? 0) },
            logger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await backend.run() }
            let direct = "http://127.0.0.1:\(try await ports.wait(\.bare))"
            let base = running.url.absoluteString
            let adminToken = try String(contentsOf: running.server.configuration.adminTokenPath, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            _ = try await ServerBenchmark.send(
                "PUT",
                "\(base)/admin/apps/\(BenchmarkServer.appID)/destinations/files",
                token: adminToken,
                body: #"{"url": "\#(direct)"}"#
            )
            let session = try await ServerBenchmark.registerDevice(base: base)
            let proxied = "\(base)/apps/\(BenchmarkServer.appID)/destinations/files"
            func request(_ url: String, token: String?) -> URLRequest {
                var request = URLRequest(url: URL(string: url)!)
                if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
                return request
            }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpShouldSetCookies = false
            let client = URLSession(configuration: configuration)
            // Each answer once, checked.
            guard try await RequestTiming.fetch(client, request("\(proxied)/small", token: session)).count == 64
            else { throw ValidationError("the destination did not pass the small answer through") }
            print("destination.config.requests: \(requests)")
            print("destination.config.large_mb: \(megabytes)")

            var directRuns: [[Double]] = []
            var proxiedRuns: [[Double]] = []
            var directRates: [Double] = []
            var proxiedRates: [Double] = []
            for _ in 0..<rounds {
                directRuns.append(
                    try await RequestTiming.time(client, requests) { _ in [request("\(direct)/small", token: nil)] }
                )
                proxiedRuns.append(
                    try await RequestTiming.time(client, requests) { _ in
                        [request("\(proxied)/small", token: session)]
                    }
                )
                directRates.append(try await rate(client, request("\(direct)/large", token: nil)))
                proxiedRates.append(try await rate(client, request("\(proxied)/large", token: session)))
            }
            let direct50 = Measure.median(of: directRuns, percentile: 0.5)
            let proxied50 = Measure.median(of: proxiedRuns, percentile: 0.5)
            let direct95 = Measure.median(of: directRuns, percentile: 0.95)
            let proxied95 = Measure.median(of: proxiedRuns, percentile: 0.95)
            Measure.report("destination.small.direct_p50_ms", direct50)
            Measure.report("destination.small.proxied_p50_ms", proxied50)
            Measure.report("destination.small.direct_p95_ms", direct95)
            Measure.report("destination.small.proxied_p95_ms", proxied95)
            Measure.report("destination.small.added_p50_ms", proxied50 - direct50)
            Measure.report("destination.large.direct_mb_s", Measure.median(directRates))
            Measure.report("destination.large.proxied_mb_s", Measure.median(proxiedRates))
            Measure.report(
                "destination.large.ratio_to_direct",
                Measure.median(proxiedRates) / Measure.median(directRates)
            )
            group.cancelAll()
        }
    }

    /// Megabytes a second over ``downloads`` large answers, each read whole.
    private func rate(_ client: URLSession, _ request: URLRequest) async throws -> Double {
        let started = ContinuousClock.now
        var bytes = 0
        for _ in 0..<downloads { bytes += try await RequestTiming.fetch(client, request).count }
        guard bytes == downloads * (megabytes << 20) else { throw ValidationError("a large answer came short") }
        return Double(bytes) / Double(1 << 20) / (Measure.milliseconds(ContinuousClock.now - started) / 1_000)
    }
}

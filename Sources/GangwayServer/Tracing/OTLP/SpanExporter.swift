import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Sends the queued spans to the collector by OTLP over HTTP (protobuf), in batches:
/// when a batch's worth waits, and at least every ``interval``. On a graceful shutdown
/// (after the server's own services stopped) it sends what still waits, and stops.
///
/// A collector that refuses or cannot be reached costs the batch, never the server: the
/// spans are dropped and the log says so, at most once per ten seconds of each kind
/// (``RepeatLimitedLogHandler``), with how many were lost.
struct SpanExporter: Service {
    let queue: SpanQueue
    /// The collector's `v1/traces`.
    let url: String
    let logger: Logger
    /// The longest a span waits in the queue while fewer than a batch wait.
    var interval: Duration = .seconds(1)
    /// The longest an export waits for the collector's answer to begin, and then for
    /// each part of it.
    var timeout: TimeAmount = .seconds(10)

    /// The export's own HTTP client: a collector that refuses the connection fails the
    /// export at once, where a shared client would try again until the timeout; one that
    /// begins an answer and stops fails it after ``timeout``, where the request's deadline
    /// covers its head alone.
    private func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(2)
        configuration.timeout.read = timeout
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    func run() async throws {
        let client = makeClient()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                // The timer: wakes the export every interval until the wakings end.
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil { queue.wake() }
                }
                for await _ in queue.wakings { await sendWaiting(through: client) }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            queue.finish()
        }
        // The last spans, sent whatever cancelled the wait.
        await sendWaiting(through: client)
        try? await client.shutdown()
    }

    /// Sends every span waiting now, through a client of its own.
    func sendWaiting() async {
        let client = makeClient()
        await sendWaiting(through: client)
        try? await client.shutdown()
    }

    /// Sends every span waiting now, a batch at a time. Once a batch could not be sent,
    /// the others waiting are dropped without trying, so a collector that is down costs
    /// one timeout per round, not one per batch.
    private func sendWaiting(through client: HTTPClient) async {
        var waiting = queue.count
        var failed = false
        repeat {
            let (spans, dropped) = queue.take(upTo: queue.batchSize)
            if dropped > 0 {
                logger.warning(
                    "Spans were dropped: more ended than the collector took in time",
                    metadata: ["spans": "\(dropped)", "queue": "\(queue.capacity)"]
                )
            }
            guard !spans.isEmpty else { return }
            if failed {
                logger.warning("Spans were dropped: the collector failed", metadata: ["spans": "\(spans.count)"])
            } else {
                failed = !(await send(spans, through: client))
            }
            waiting -= spans.count
        } while waiting > 0
    }

    /// Sends `spans`; whether the collector took them.
    private func send(_ spans: [FinishedSpan], through client: HTTPClient) async -> Bool {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-protobuf")
        let body = OTLPTraceRequest.encode(spans, service: "gangway", scope: "gangway")
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: timeout)
            _ = try? await response.body.collect(upTo: 1 << 20)
            guard (200..<300).contains(response.status.code) else {
                logger.warning(
                    "Spans were not sent: the collector refused them",
                    metadata: ["status": "\(response.status.code)", "spans": "\(spans.count)"]
                )
                return false
            }
            return true
        } catch {
            logger.warning(
                "Spans were not sent: the collector could not be reached",
                metadata: ["error": "\(String(reflecting: type(of: error)))", "spans": "\(spans.count)"]
            )
            return false
        }
    }
}

import Foundation
import GangwayServerStorage
import Logging
import ServiceLifecycle
import Tracing

/// Spans exported by OTLP over HTTP (protobuf) to the operator's collector, when
/// `gangway serve --otlp-endpoint` names one; no span is made otherwise.
///
/// A span of each request (named by its route's template), of each statement (its kind
/// and table), of each call upstream (a destination, a data source's page, a change's
/// delivery, a provider's endpoint), batched and sent in the background; the last are
/// sent when the server stops. A caller's `traceparent` is the parent of its request's
/// span, and what the server sends a backend names its own span as the parent.
///
/// Settings come from the server's options alone, never from the `OTEL_*` variables of
/// OpenTelemetry's SDKs: one place says where the spans go. Sampling is by trace ID
/// (``sampleRatio``), whatever the caller's `sampled` flag says, so no device decides
/// how much the collector is sent.
public struct TraceExport: Sendable, Hashable {
    /// The collector's URL, as OTLP's `OTEL_EXPORTER_OTLP_ENDPOINT` is given (such as
    /// `http://127.0.0.1:4318`); the spans go to its `v1/traces` (``tracesURL``).
    public let endpoint: String
    /// The share of traces recorded, from 0 to 1 (``sampleRatios``).
    public let sampleRatio: Double

    /// The shares of traces an operator may have recorded.
    public static let sampleRatios: ClosedRange<Double> = 0...1

    /// A collector's URL checked: `http` or `https`, a host, no user or password, query
    /// or fragment; and the share of traces to keep.
    public init(endpoint: String, sampleRatio: Double = 1) throws(TraceExportError) {
        guard let url = URLComponents(string: endpoint), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty
        else {
            throw TraceExportError("is not an http or https URL, such as http://127.0.0.1:4318")
        }
        guard url.user == nil, url.password == nil else {
            throw TraceExportError("must not hold a user or password: give the collector's address alone")
        }
        guard url.query == nil, url.fragment == nil else {
            throw TraceExportError("must not have a query or fragment")
        }
        guard Self.sampleRatios.contains(sampleRatio) else {
            throw TraceExportError("sample ratio must be between 0 and 1")
        }
        self.endpoint = endpoint
        self.sampleRatio = sampleRatio
    }

    /// Where the spans are sent: the endpoint's `v1/traces`, or the endpoint itself when
    /// it ends so already (as OpenTelemetry's `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is
    /// written), never `v1/traces` twice.
    public var tracesURL: String {
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        return base.hasSuffix("/v1/traces") ? base : base + "/v1/traces"
    }

    /// The most spans waiting to be sent; past them, new spans are dropped (and counted in
    /// a warning).
    static let queuedSpans = 8_192

    /// Starts the export: the tracer to give the server, and the service that sends its
    /// spans, to run beside the server and stop after it (``MobileServicesServer/run(alongside:onListening:onConsoleListening:onMetricsListening:)``),
    /// so the last spans go.
    ///
    /// The export is Gangway's own (spans as plain values, OTLP's protobuf written
    /// directly): swift-otel's made each span cost some 12 µs on the server's threads (a
    /// hop to its processor and an event loop woken per span), and its processor and
    /// exporter cannot be changed from outside.
    public func start(logger: Logger) -> (tracer: ServerTracer, service: any Service) {
        // Batches of up to 2,048 spans, from a queue of 8,192: a busy server sends fewer,
        // larger exports, and drops spans only past four batches waiting.
        let queue = SpanQueue(capacity: Self.queuedSpans, batchSize: Self.queuedSpans / 4)
        var random = SystemRandomNumberGenerator()
        let tracer = OTLPTracer(queue: queue, sampleRatio: sampleRatio, random: &random)
        // Its warnings (spans dropped, a collector down) come at each batch: at most one
        // of each kind in ten seconds reaches the log.
        let exporter = SpanExporter(
            queue: queue,
            url: tracesURL,
            logger: Logger(label: logger.label) { _ in RepeatLimitedLogHandler(base: logger) }
        )
        return (ServerTracer(tracer), exporter)
    }
}

/// Why spans cannot be exported as asked: one sentence's end, after what was asked
/// (`--otlp-endpoint URL …`).
public struct TraceExportError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

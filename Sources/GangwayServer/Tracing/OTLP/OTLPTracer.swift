import GangwayServerStorage
import Tracing
import W3CTraceContext

/// Gangway's tracer for an OTLP export: spans as plain values (``OTLPSpan``), queued when
/// they end (``SpanQueue``) for ``SpanExporter`` to send; the W3C `traceparent` and
/// `tracestate` read from a caller and written for a backend.
///
/// Sampling is by trace ID alone (OpenTelemetry's `TraceIdRatioBased`: the ID's last 8
/// bytes against the ratio), so every span of a trace is kept or none, on every server
/// that samples at the same ratio, whatever the caller's `sampled` flag says.
///
/// IDs come from a ``TraceIDSource`` seeded once from `random`.
final class OTLPTracer: Tracer, Sendable {
    typealias Span = OTLPSpan

    private let queue: SpanQueue
    /// Trace IDs whose last 8 bytes are below it are kept; `nil` keeps every one.
    private let threshold: UInt64?
    private let ids: TraceIDSource

    init(queue: SpanQueue, sampleRatio: Double, random: inout some RandomNumberGenerator) {
        self.queue = queue
        threshold = sampleRatio >= 1 ? nil : UInt64(exactly: (sampleRatio * 0x1p64).rounded(.down)) ?? .max
        ids = TraceIDSource(random: &random)
    }

    /// Whether spans of `trace` are recorded.
    func samples(_ trace: TraceID) -> Bool {
        guard let threshold else { return true }
        let low = withUnsafeBytes(of: trace.bytes) {
            UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        return low < threshold
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> OTLPSpan {
        var context = context()
        let parent = context.spanTrace
        let (trace, sampled) = trace(under: parent)
        context.spanTrace = trace
        return OTLPSpan(
            name: operationName,
            kind: kind,
            context: context,
            trace: trace,
            parentSpanID: parent?.spanID,
            start: instant().nanosecondsSinceEpoch,
            recording: sampled,
            queue: queue
        )
    }

    /// The server span of a request, its caller's span the parent when it named one: made
    /// directly, with no context to read it from, and its HTTP attributes as plain values
    /// (``RequestSpanFields``), since every request makes one. Its context marks a span
    /// the sampler left out (``ServerTracer/unrecorded(_:)``), so that nothing the request
    /// runs makes a span either.
    func startRequestSpan(_ request: RequestSpanFields, caller: TraceContext?) -> OTLPSpan {
        let (trace, sampled) = trace(under: caller)
        var context = ServiceContext.topLevel
        context.spanTrace = trace
        return OTLPSpan(
            name: request.name,
            kind: .server,
            context: sampled ? context : ServerTracer.unrecorded(context),
            trace: trace,
            parentSpanID: caller?.spanID,
            start: DefaultTracerClock.now.nanosecondsSinceEpoch,
            recording: sampled,
            queue: queue,
            request: request
        )
    }

    /// A new span's trace context under `parent` (a new trace without one), and whether
    /// the span is recorded.
    private func trace(under parent: TraceContext?) -> (TraceContext, sampled: Bool) {
        let traceID = parent?.traceID ?? ids.traceID()
        let sampled = samples(traceID)
        var flags = parent?.flags ?? []
        if sampled { flags.insert(.sampled) } else { flags.remove(.sampled) }
        let trace = TraceContext(
            traceID: traceID,
            spanID: ids.spanID(),
            flags: flags,
            state: parent?.state ?? TraceState()
        )
        return (trace, sampled)
    }

    /// Wakes the export to send what waits.
    func forceFlush() { queue.wake() }

    /// Reads `traceparent` and `tracestate`; a `traceparent` that is not valid is left out
    /// (the span then starts a trace of its own), and so is a `tracestate` that is not.
    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    ) where Extract.Carrier == Carrier {
        guard let parent = extractor.extract(key: "traceparent", from: carrier) else { return }
        let state = extractor.extract(key: "tracestate", from: carrier)
        guard
            let trace = (try? TraceContext(traceParentHeaderValue: parent, traceStateHeaderValue: state))
                ?? (try? TraceContext(traceParentHeaderValue: parent))
        else { return }
        context.spanTrace = trace
    }

    /// Writes the context's span as the parent: `traceparent`, and `tracestate` when
    /// there is one.
    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext,
        into carrier: inout Carrier,
        using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let trace = context.spanTrace else { return }
        injector.inject(trace.traceParentHeaderValue, forKey: "traceparent", into: &carrier)
        if let state = trace.traceStateHeaderValue, !state.isEmpty {
            injector.inject(state, forKey: "tracestate", into: &carrier)
        }
    }
}

extension ServiceContext {
    /// The span a context is in, by its W3C trace context: ``OTLPTracer``'s key.
    var spanTrace: TraceContext? {
        get { self[SpanTraceKey.self] }
        set { self[SpanTraceKey.self] = newValue }
    }
}

private enum SpanTraceKey: ServiceContextKey {
    typealias Value = TraceContext
}

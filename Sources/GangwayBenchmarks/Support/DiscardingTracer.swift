import Synchronization
import Tracing

/// A tracer that makes every span as a recording one and keeps nothing when it ends:
/// what the server's spans cost before any exporter (`gangway-benchmark tracing
/// --discard`), so the exporter's share of the cost shows.
struct DiscardingTracer: Tracer {
    func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> DiscardedSpan {
        DiscardedSpan(operationName: operationName, context: context())
    }

    func forceFlush() {}

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier,
        into context: inout ServiceContext,
        using extractor: Extract
    ) where Extract.Carrier == Carrier {}

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext,
        into carrier: inout Carrier,
        using injector: Inject
    ) where Inject.Carrier == Carrier {}
}

/// A span that records into memory of its own until it ends, then is gone.
final class DiscardedSpan: Tracing.Span {
    let context: ServiceContext
    private let state: Mutex<(name: String, attributes: SpanAttributes, status: SpanStatus?)>

    init(operationName: String, context: ServiceContext) {
        self.context = context
        state = Mutex((operationName, [:], nil))
    }

    var operationName: String {
        get { state.withLock { $0.name } }
        set { state.withLock { $0.name = newValue } }
    }

    var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    var isRecording: Bool { true }

    func setStatus(_ status: SpanStatus) { state.withLock { $0.status = status } }

    func addEvent(_ event: SpanEvent) {}

    func recordError<Instant: TracerInstant>(
        _ error: any Error,
        attributes: SpanAttributes,
        at instant: @autoclosure () -> Instant
    ) {}

    func addLink(_ link: SpanLink) {}

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {}
}

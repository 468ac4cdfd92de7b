import Synchronization
import Tracing
import W3CTraceContext

/// A span of ``OTLPTracer``: what it records is kept under a lock until it ends, then
/// handed to the export's queue as a value (``FinishedSpan``), once. A span the sampler
/// left out records nothing and is never queued; its context is still passed on.
///
/// A request's span keeps its HTTP attributes as plain values (``RequestSpanFields``)
/// until it is exported; its ``attributes`` include them.
final class OTLPSpan: Tracing.Span {
    let context: ServiceContext
    let isRecording: Bool
    /// The span's own trace context, as its ``context`` holds it.
    let trace: TraceContext
    private let parentSpanID: SpanID?
    private let kind: SpanKind
    private let start: UInt64
    private let queue: SpanQueue
    private let state: Mutex<State>

    private struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        /// A request's attributes, apart from ``attributes`` until they are asked for.
        var request: RequestSpanFields?
        var events: [SpanEvent] = []
        var links: [SpanLink] = []
        var status: SpanStatus?
        var ended = false
    }

    init(
        name: String,
        kind: SpanKind,
        context: ServiceContext,
        trace: TraceContext,
        parentSpanID: SpanID?,
        start: UInt64,
        recording: Bool,
        queue: SpanQueue,
        request: RequestSpanFields? = nil
    ) {
        self.context = context
        self.trace = trace
        self.isRecording = recording
        self.parentSpanID = parentSpanID
        self.kind = kind
        self.start = start
        self.queue = queue
        state = Mutex(State(name: name, request: request))
    }

    var operationName: String {
        get { state.withLock { $0.name } }
        set { record { $0.name = newValue } }
    }

    /// What the span records, a request's fields among them; once set, the request's
    /// fields are what it holds.
    var attributes: SpanAttributes {
        get { state.withLock { state in state.request?.adding(to: state.attributes) ?? state.attributes } }
        set {
            record { state in
                state.attributes = newValue
                state.request = nil
            }
        }
    }

    /// The answer to the span's request: its status (`http.response.status_code`), and an
    /// error status for a 5xx.
    func answered(status: Int) {
        record { state in
            if state.request != nil {
                state.request?.status = status
            } else {
                state.attributes["http.response.status_code"] = status
            }
            // An OK status is final, as in ``setStatus(_:)``.
            if status >= 500, state.status?.code != .ok { state.status = SpanStatus(code: .error) }
        }
    }

    func setStatus(_ status: SpanStatus) {
        record { state in
            // An OK status is final: neither an error nor another OK replaces it.
            guard state.status?.code != .ok else { return }
            state.status = status
        }
    }

    func addEvent(_ event: SpanEvent) { record { $0.events.append(event) } }

    func addLink(_ link: SpanLink) { record { $0.links.append(link) } }

    /// An `exception` event naming the error's type only: an error's description may
    /// hold what a request carried, and a span never does.
    func recordError<Instant: TracerInstant>(
        _ error: any Error,
        attributes: SpanAttributes,
        at instant: @autoclosure () -> Instant
    ) {
        guard isRecording else { return }
        var attributes = attributes
        attributes["exception.type"] = String(reflecting: type(of: error))
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: attributes))
    }

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        guard isRecording else { return }
        let end = instant().nanosecondsSinceEpoch
        let finished: FinishedSpan? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return FinishedSpan(
                trace: trace,
                parentSpanID: parentSpanID,
                name: state.name,
                kind: kind,
                start: start,
                end: end,
                attributes: state.attributes,
                request: state.request,
                events: state.events,
                links: state.links,
                status: state.status
            )
        }
        if let finished { queue.append(finished) }
    }

    /// Changes what the span records, while it records and has not ended.
    private func record(_ change: (inout State) -> Void) {
        guard isRecording else { return }
        state.withLock { state in
            guard !state.ended else { return }
            change(&state)
        }
    }
}

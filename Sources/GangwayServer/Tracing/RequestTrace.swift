import GangwayServerStorage
import W3CTraceContext

/// A request's place in a distributed trace (W3C Trace Context): the caller's trace when
/// its `traceparent` is valid, a new one otherwise, and this server's own span in it.
///
/// What the server sends on to a company's backend (a destination, a data source's
/// read, a change's delivery) carries the same trace, with the server's span as the
/// parent, and the caller's `tracestate` as it came; the request's log line names the
/// trace, so one request is followed from the device through the server to the backend.
struct RequestTrace: Sendable {
    /// The trace, the server's span in it, the caller's flags and state.
    let context: TraceContext

    /// The longest `tracestate` passed on; a longer one is dropped, as the specification
    /// allows (512 characters).
    static let stateLimit = 512

    /// The trace of a request with these headers; a new one when `traceparent` is missing
    /// or invalid (another version, a trace or span of zeros, not hex).
    init(traceparent: String?, tracestate: String?, ids: TraceIDSource = .process) {
        if let caller = Self.caller(traceparent: traceparent, tracestate: tracestate) {
            context = TraceContext(
                traceID: caller.traceID,
                spanID: ids.spanID(),
                flags: caller.flags,
                state: caller.state
            )
        } else {
            context = TraceContext(traceID: ids.traceID(), spanID: ids.spanID(), flags: [], state: TraceState())
        }
    }

    /// The trace of the server's own span, as its tracer keeps it.
    init(context: TraceContext) {
        self.context = context
    }

    /// The trace of the server's own span, from the headers a tracer writes for it
    /// (``ServerTracer/headers(of:)``); `nil` when they hold no valid `traceparent`.
    init?(headers: [(name: String, value: String)]) {
        let value = { (name: String) in headers.first { $0.name == name }?.value }
        guard let traceparent = value("traceparent"),
            let own =
                (try? TraceContext(traceParentHeaderValue: traceparent, traceStateHeaderValue: value("tracestate")))
                ?? (try? TraceContext(traceParentHeaderValue: traceparent))
        else { return nil }
        context = own
    }

    /// The caller's trace context when its `traceparent` is valid; with its `tracestate`
    /// when that is valid and within ``stateLimit``, without it otherwise.
    static func caller(traceparent: String?, tracestate: String?) -> TraceContext? {
        guard let traceparent else { return nil }
        let state = accepted(state: tracestate)
        return (try? TraceContext(traceParentHeaderValue: traceparent, traceStateHeaderValue: state))
            ?? (try? TraceContext(traceParentHeaderValue: traceparent))
    }

    /// A caller's `tracestate` when it is within ``stateLimit``; `nil` otherwise.
    static func accepted(state: String?) -> String? {
        state.flatMap { $0.utf8.count <= stateLimit ? $0 : nil }
    }

    /// The caller's headers as a tracer is to read them: `nil` when `traceparent` is
    /// missing or not valid (a trace of the server's own then), the `tracestate` only
    /// when it is valid and within ``stateLimit``. A tracer handed a broken header logs
    /// it; none is.
    static func accepted(
        traceparent: String?,
        tracestate: String?
    ) -> (traceparent: String, tracestate: String?)? {
        guard let traceparent, (try? TraceContext(traceParentHeaderValue: traceparent)) != nil else { return nil }
        let state = accepted(state: tracestate).flatMap { state in
            (try? TraceContext(traceParentHeaderValue: traceparent, traceStateHeaderValue: state)) != nil ? state : nil
        }
        return (traceparent, state)
    }

    /// A new trace, for work no request started (a data source's scheduled read, a
    /// change's delivery).
    static func new() -> RequestTrace { RequestTrace(traceparent: nil, tracestate: nil) }

    /// The trace's ID, as its log line names it: 32 hex digits.
    var traceID: String { "\(context.traceID)" }

    /// The headers a request onward carries: `traceparent` naming this server's span as
    /// the parent, and `tracestate` as the caller sent it.
    var headers: [(name: String, value: String)] {
        var headers = [(name: "traceparent", value: context.traceParentHeaderValue)]
        if let state = context.traceStateHeaderValue, !state.isEmpty {
            headers.append((name: "tracestate", value: state))
        }
        return headers
    }
}

extension ServerTracer {
    /// The trace context a request onward carries: the current span's when the server
    /// makes spans, else `trace`'s (the server's span in the caller's trace, which no
    /// collector sees).
    func onwardHeaders(_ trace: RequestTrace) -> [(name: String, value: String)] {
        isOn ? headers() : trace.headers
    }
}

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
    /// The caller's span, when the request carried a valid `traceparent`.
    let callerSpan: String?

    /// The longest `tracestate` passed on; a longer one is dropped, as the specification
    /// allows (512 characters).
    static let stateLimit = 512

    /// The trace of a request with these headers; a new one when `traceparent` is missing
    /// or invalid (another version, a trace or span of zeros, not hex).
    init(traceparent: String?, tracestate: String?) {
        let state = tracestate.flatMap { $0.utf8.count <= Self.stateLimit ? $0 : nil }
        if let traceparent,
            let caller = (try? TraceContext(traceParentHeaderValue: traceparent, traceStateHeaderValue: state))
                ?? (try? TraceContext(traceParentHeaderValue: traceparent))
        {
            context = TraceContext(traceID: caller.traceID, spanID: .random(), flags: caller.flags, state: caller.state)
            callerSpan = "\(caller.spanID)"
        } else {
            context = TraceContext(traceID: .random(), spanID: .random(), flags: [], state: TraceState())
            callerSpan = nil
        }
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

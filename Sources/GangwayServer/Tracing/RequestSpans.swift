import GangwayServerStorage
import Hummingbird
import Tracing
import W3CTraceContext

/// The span of each request: a server span named by its method and route's template, the
/// caller's `traceparent` its parent; the parent in turn of every span the request makes
/// and of what the server asks a backend (``RequestTrace``).
///
/// Gangway's own tracer (``OTLPTracer``) makes it directly
/// (``OTLPTracer/startRequestSpan(_:caller:)``): every request pays for this span, and
/// made through the `Tracer` protocol and a context read back from the span it cost about
/// as much again as the rest of the export (its generic code specialized for no type,
/// a dynamic cast, two attribute dictionaries). Any other tracer, one an app embedding the
/// server gives, makes it through ``ServerTracer``.
struct RequestSpans: Sendable {
    /// Where the spans go.
    let tracer: ServerTracer
    /// The tracer when it is Gangway's own.
    private let otlp: OTLPTracer?

    init(_ tracer: ServerTracer) {
        self.tracer = tracer
        otlp = tracer.underlying as? OTLPTracer
    }

    /// No spans.
    static let none = RequestSpans(.none)

    /// Whether requests are spans.
    var isOn: Bool { tracer.isOn }

    /// Runs `respond` in the span of a request with these fields and trace headers, and
    /// hands it the request's trace; the span ends with the answer's status, an error
    /// status for a 5xx or an error thrown (which is thrown on as it was).
    func withSpan(
        of request: RequestSpanFields,
        traceparent: String?,
        tracestate: String?,
        _ respond: (RequestTrace) async throws -> Response
    ) async throws -> Response {
        guard let otlp else {
            return try await withGenericSpan(of: request, traceparent: traceparent, tracestate: tracestate, respond)
        }
        let span = otlp.startRequestSpan(
            request,
            caller: RequestTrace.caller(traceparent: traceparent, tracestate: tracestate)
        )
        do {
            let response = try await InstrumentationContext.$current.withValue(span.context) {
                try await respond(RequestTrace(context: span.trace))
            }
            span.answered(status: Int(response.status.code))
            span.end()
            return response
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.end()
            throw error
        }
    }

    /// The span made through ``ServerTracer``, for a tracer other than Gangway's.
    private func withGenericSpan(
        of request: RequestSpanFields,
        traceparent: String?,
        tracestate: String?,
        _ respond: (RequestTrace) async throws -> Response
    ) async throws -> Response {
        let caller = RequestTrace.accepted(traceparent: traceparent, tracestate: tracestate)
        let parent = tracer.context(traceparent: caller?.traceparent, tracestate: caller?.tracestate)
        return try await tracer.withSpan(
            request.name,
            ofKind: .server,
            context: parent ?? .topLevel,
            attributes: { attributes in attributes = request.adding(to: attributes) }
        ) { span in
            // The span's own trace context, read back from the headers the tracer writes.
            let trace =
                RequestTrace(headers: tracer.headers())
                ?? RequestTrace(traceparent: traceparent, tracestate: tracestate)
            let response = try await respond(trace)
            span?.attributes["http.response.status_code"] = Int(response.status.code)
            if response.status.code >= 500 { span?.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }
}

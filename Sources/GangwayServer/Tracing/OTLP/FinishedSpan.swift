import Tracing
import W3CTraceContext

/// A span that has ended, as it is exported: plain values, kept in the export's queue
/// until they are sent.
struct FinishedSpan: Sendable {
    var trace: TraceContext
    var parentSpanID: SpanID?
    var name: String
    var kind: SpanKind
    var start: UInt64
    var end: UInt64
    var attributes: SpanAttributes
    /// A request's attributes, kept apart (``RequestSpanFields``); written before the
    /// others.
    var request: RequestSpanFields?
    var events: [SpanEvent]
    var links: [SpanLink]
    var status: SpanStatus?
}

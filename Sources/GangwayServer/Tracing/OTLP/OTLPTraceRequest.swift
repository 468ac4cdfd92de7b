import Tracing
import W3CTraceContext

/// Spans as OTLP sends them to a collector's `/v1/traces`: an `ExportTraceServiceRequest`
/// of opentelemetry-proto (v1), in Protocol Buffers' binary encoding, written by hand
/// (``ProtobufWriter``) from the spans' values.
///
/// All the spans are of one resource (`service.name`) and one instrumentation scope.
enum OTLPTraceRequest {
    /// The request's bytes for `spans`.
    static func encode(_ spans: some Collection<FinishedSpan>, service: String, scope: String) -> [UInt8] {
        var writer = ProtobufWriter(capacity: 64 + spans.count * 256)
        // ExportTraceServiceRequest.resource_spans
        writer.message(1) { resourceSpans in
            // ResourceSpans.resource: Resource.attributes
            resourceSpans.message(1) { resource in
                resource.message(1) { $0.keyValue("service.name", .string(service)) }
            }
            // ResourceSpans.scope_spans
            resourceSpans.message(2) { scopeSpans in
                // ScopeSpans.scope: InstrumentationScope.name
                scopeSpans.message(1) { $0.string(1, scope) }
                for span in spans {
                    scopeSpans.message(2) { $0.span(span) }
                }
            }
        }
        return writer.bytes
    }
}

extension ProtobufWriter {
    /// A `Span` message's fields.
    fileprivate mutating func span(_ span: FinishedSpan) {
        id(1, span.trace.traceID.bytes)
        id(2, span.trace.spanID.bytes)
        if let state = span.trace.traceStateHeaderValue { string(3, state) }
        if let parent = span.parentSpanID { id(4, parent.bytes) }
        string(5, span.name)
        uint(6, span.kind.otlpValue)
        fixed64(7, span.start)
        fixed64(8, span.end)
        span.request?.forEach { key, value in message(9) { $0.keyValue(key, value) } }
        span.attributes.forEach { key, value in message(9) { $0.keyValue(key, value) } }
        for event in span.events {
            message(11) { writer in
                writer.fixed64(1, event.nanosecondsSinceEpoch)
                writer.string(2, event.name)
                event.attributes.forEach { key, value in writer.message(3) { $0.keyValue(key, value) } }
            }
        }
        for link in span.links {
            guard let linked = link.context.spanTrace else { continue }
            message(13) { writer in
                writer.id(1, linked.traceID.bytes)
                writer.id(2, linked.spanID.bytes)
                if let state = linked.traceStateHeaderValue { writer.string(3, state) }
                link.attributes.forEach { key, value in writer.message(4) { $0.keyValue(key, value) } }
                writer.fixed32(6, UInt32(linked.flags.rawValue))
            }
        }
        if let status = span.status {
            message(15) { writer in
                if let message = status.message { writer.string(2, message) }
                writer.uint(3, status.code == .ok ? 1 : 2)
            }
        }
        // Span.flags: the W3C trace flags.
        fixed32(16, UInt32(span.trace.flags.rawValue))
    }

    /// A trace or span ID: its bytes, in order.
    fileprivate mutating func id<Bytes>(_ field: Int, _ id: Bytes) {
        withUnsafeBytes(of: id) { data(field, $0) }
    }

    /// A `KeyValue` message's fields.
    fileprivate mutating func keyValue(_ key: String, _ value: SpanAttribute) {
        string(1, key)
        message(2) { $0.anyValue(value) }
    }

    /// An `AnyValue` message's fields: one member of its `oneof`, written even when it is
    /// its type's default.
    fileprivate mutating func anyValue(_ value: SpanAttribute) {
        switch value {
        case .int32(let value): int(3, Int64(value), present: true)
        case .int64(let value): int(3, value, present: true)
        case .double(let value): double(4, value, present: true)
        case .bool(let value): bool(2, value, present: true)
        case .string(let value): string(1, value, present: true)
        case .stringConvertible(let value): string(1, value.description, present: true)
        case .int32Array(let values): array(values) { $0.int(3, Int64($1), present: true) }
        case .int64Array(let values): array(values) { $0.int(3, $1, present: true) }
        case .doubleArray(let values): array(values) { $0.double(4, $1, present: true) }
        case .boolArray(let values): array(values) { $0.bool(2, $1, present: true) }
        case .stringArray(let values): array(values) { $0.string(1, $1, present: true) }
        case .stringConvertibleArray(let values):
            array(values) { $0.string(1, $1.description, present: true) }
        default: string(1, "\(value)", present: true)
        }
    }

    /// `AnyValue.array_value`: an `ArrayValue` of one `AnyValue` per element.
    private mutating func array<Element>(_ values: [Element], _ write: (inout ProtobufWriter, Element) -> Void) {
        message(5) { array in
            for value in values { array.message(1) { write(&$0, value) } }
        }
    }
}

extension SpanKind {
    /// OTLP's `Span.SpanKind`.
    fileprivate var otlpValue: UInt64 {
        switch self {
        case .internal: 1
        case .server: 2
        case .client: 3
        case .producer: 4
        case .consumer: 5
        }
    }
}

import Tracing

/// Where a server's spans go: the tracer an operator named a collector for (`gangway
/// serve --otlp-endpoint`), or the one an app embedding the server gives; with none, no
/// span is made and tracing costs nothing.
///
/// Spans name what was done, never with what: a route's template, a statement's kind
/// and table, a destination's name; no path, user, token or value.
public struct ServerTracer: Sendable {
    @usableFromInline let tracer: (any Tracer)?

    /// Spans go to `tracer`; none are made when it is `nil`.
    public init(_ tracer: (any Tracer)?) {
        self.tracer = tracer
    }

    /// No spans.
    public static let none = ServerTracer(nil)

    /// Whether spans are made.
    public var isOn: Bool { tracer != nil }

    /// The tracer spans go to; `nil` when none are made.
    public var underlying: (any Tracer)? { tracer }

    /// `context`, marked as the context of a span the sampler left out: no child span is
    /// made in it, as in a span ``withSpan(_:ofKind:context:attributes:isolation:_:)``
    /// makes. For a tracer that makes a span without this type and runs work in it.
    public static func unrecorded(_ context: InstrumentationContext) -> InstrumentationContext {
        var context = context
        context[Unrecorded.self] = true
        return context
    }

    /// Runs `body` inside a span named `name`, the current span its parent unless
    /// `context` says otherwise; the span ends when `body` does, and records the error
    /// `body` throws, which is thrown on as it was. `body` is handed the span to add to
    /// (`nil` with no tracer).
    ///
    /// Inside a span the sampler left out, no span is made (its children would be left
    /// out too) unless `context` starts a trace of its own: a trace not recorded costs
    /// its first span alone.
    ///
    /// Inlinable, so that each caller's types are known where it runs: generic code
    /// across modules looks its types up at each call.
    @inlinable
    public func withSpan<T, Failure: Error>(
        _ name: @autoclosure () -> String,
        ofKind kind: SpanKind = .internal,
        context: InstrumentationContext? = nil,
        attributes: (inout SpanAttributes) -> Void = { _ in },
        isolation: isolated (any Actor)? = #isolation,
        _ body: (_ span: (any Span)?) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        guard let tracer else { return try await body(nil) }
        let parent = context ?? .current ?? .topLevel
        if context == nil, parent[Unrecorded.self] == true { return try await body(nil) }
        return try await Self.withSpan(
            tracer,
            name(),
            ofKind: kind,
            context: parent,
            attributes: attributes,
            isolation: isolation,
            body
        )
    }

    @inlinable
    static func withSpan<Traces: Tracer, T, Failure: Error>(
        _ tracer: Traces,
        _ name: String,
        ofKind kind: SpanKind,
        context: InstrumentationContext,
        attributes: (inout SpanAttributes) -> Void,
        isolation: isolated (any Actor)?,
        _ body: (_ span: (any Span)?) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let span = tracer.startSpan(name, context: context, ofKind: kind)
        defer { span.end() }
        var inner = span.context
        if span.isRecording {
            span.updateAttributes(attributes)
        } else {
            inner = Self.unrecorded(inner)
        }
        let result: Result<T, Failure> = await InstrumentationContext.withValue(inner, isolation: isolation) {
            do throws(Failure) {
                return .success(try await body(span))
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        return try result.get()
    }

    /// Runs `body` inside a span named `name` that has no children (a statement), a child
    /// of the current span when that one is recorded; `body` runs with no span when there
    /// is no current span or it is not recorded. The span is never made the current one:
    /// what `body` runs makes none, so the task-local context is left as it is.
    @inlinable
    public func withLeafSpan<T, Failure: Error>(
        _ name: @autoclosure () -> String,
        ofKind kind: SpanKind = .internal,
        attributes: (inout SpanAttributes) -> Void = { _ in },
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        guard let tracer, let parent = InstrumentationContext.current, parent[Unrecorded.self] != true else {
            return try await body()
        }
        return try await Self.withLeafSpan(
            tracer,
            name(),
            ofKind: kind,
            context: parent,
            attributes: attributes,
            isolation: isolation,
            body
        )
    }

    @inlinable
    static func withLeafSpan<Traces: Tracer, T, Failure: Error>(
        _ tracer: Traces,
        _ name: String,
        ofKind kind: SpanKind,
        context: InstrumentationContext,
        attributes: (inout SpanAttributes) -> Void,
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let span = tracer.startSpan(name, context: context, ofKind: kind)
        defer { span.end() }
        if span.isRecording { span.updateAttributes(attributes) }
        do {
            return try await body()
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// Whether the work running now is in a span that is recorded: what a child span
    /// needs to be one.
    static var inRecordedSpan: Bool {
        guard let current = InstrumentationContext.current else { return false }
        return current[Unrecorded.self] != true
    }

    /// The context a request's headers carry (W3C `traceparent` and `tracestate`), for
    /// its span's parent; `nil` with no tracer, or headers that carry none.
    public func context(traceparent: String?, tracestate: String?) -> InstrumentationContext? {
        guard let tracer, let traceparent else { return nil }
        var carrier = ["traceparent": traceparent]
        if let tracestate { carrier["tracestate"] = tracestate }
        var context = InstrumentationContext.topLevel
        tracer.extract(carrier, into: &context, using: DictionaryCarrier())
        return context
    }

    /// The headers a request onward carries (W3C `traceparent`, and `tracestate` when
    /// there is one) for the span of `context` (the current one's by default) to be its
    /// parent; none with no tracer.
    public func headers(
        of context: InstrumentationContext? = InstrumentationContext.current
    ) -> [(name: String, value: String)] {
        guard let tracer, let context else { return [] }
        var carrier: [String: String] = [:]
        tracer.inject(context, into: &carrier, using: DictionaryCarrier())
        return carrier.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }
}

/// Marks a context whose span is not recorded (``ServerTracer/withSpan(_:ofKind:context:attributes:isolation:_:)``).
@usableFromInline
enum Unrecorded: InstrumentationContextKey {
    @usableFromInline typealias Value = Bool
}

/// Headers as a dictionary, for a tracer to read a context from or write one into.
private struct DictionaryCarrier: Extractor, Injector {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }

    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}

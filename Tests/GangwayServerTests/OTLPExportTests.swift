import Foundation
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import InMemoryTracing
import Logging
import NIOCore
import ServiceLifecycle
import Testing
import Tracing
import W3CTraceContext

@testable import GangwayServer

/// Gangway's own OTLP export (``OTLPTracer``, ``SpanExporter``): what it sends is read by
/// opentelemetry-proto's decoder in a real receiver (``TestTraceCollector``), field by
/// field; sampling keeps or drops whole traces by their IDs; a full queue or a collector
/// that is down costs spans, never the server, and says so.
@Suite("The OTLP export: spans as a collector decodes them, sampled by trace, dropped only when said")
struct OTLPExportTests {
    /// A tracer and its exporter to `url`, with a queue of `capacity`.
    static func export(
        to url: String,
        ratio: Double = 1,
        capacity: Int = 1_000,
        batch: Int = 100,
        logger: Logger = Logger(label: "test")
    ) -> (OTLPTracer, SpanExporter, SpanQueue) {
        let queue = SpanQueue(capacity: capacity, batchSize: batch)
        var random = SystemRandomNumberGenerator()
        let tracer = OTLPTracer(queue: queue, sampleRatio: ratio, random: &random)
        return (tracer, SpanExporter(queue: queue, url: url + "/v1/traces", logger: logger), queue)
    }

    static let callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerSpan = "00f067aa0ba902b7"

    /// A context with a caller's `traceparent` and `tracestate`.
    static func callerContext(
        _ tracer: OTLPTracer,
        flags: String = "01",
        state: String? = "vendor=opaque"
    )
        -> ServiceContext
    {
        var carrier = ["traceparent": "00-\(callerTrace)-\(callerSpan)-\(flags)"]
        carrier["tracestate"] = state
        var context = ServiceContext.topLevel
        tracer.extract(carrier, into: &context, using: DictionaryExtractor())
        return context
    }

    struct Failure: Error {}

    @Test(
        "every kind of attribute, events, links, an error and the parents reach the collector as opentelemetry-proto reads them",
        .enabled(if: TestTraceCollector.isInstalled, "needs opentelemetry-proto in .build-oidc/venv (see .ci/run)")
    )
    func fieldsReachTheCollector() async throws {
        try await TestTraceCollector.using { collector in
            let (tracer, exporter, _) = Self.export(to: collector.url)
            let request = tracer.startSpan("GET /apps/{appID}", context: Self.callerContext(tracer), ofKind: .server)
            request.updateAttributes { attributes in
                attributes["text"] = "stand 12"
                attributes["empty"] = ""
                attributes["count"] = Int64(-42)
                attributes["zero"] = 0
                attributes["small"] = SpanAttribute.int32(7)
                attributes["ratio"] = 2.5
                attributes["none"] = 0.0
                attributes["yes"] = true
                attributes["no"] = false
                attributes["names"] = SpanAttribute.stringArray(["a", "b"])
                attributes["numbers"] = SpanAttribute.int64Array([1, -2, 0])
                attributes["flags"] = SpanAttribute.boolArray([true, false])
                attributes["shares"] = SpanAttribute.doubleArray([0.5, 0])
                attributes["described"] = SpanAttribute.stringConvertible(
                    UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
                )
            }
            let statement = tracer.startSpan("SELECT devices", context: request.context, ofKind: .client)
            statement.addEvent(SpanEvent(name: "retried", attributes: ["attempt": 2]))
            statement.recordError(Failure())
            statement.setStatus(SpanStatus(code: .error, message: "the database refused"))
            statement.end()
            let other = tracer.startSpan("data source read", context: .topLevel, ofKind: .internal)
            other.end()
            request.addLink(SpanLink(context: other.context, attributes: ["why": "started it"]))
            // A name past 127 bytes takes a length of two bytes.
            request.operationName = String(repeating: "long ", count: 40)
            request.end()
            // Ending twice sends one span; what is set after the end is not recorded.
            request.end()
            request.attributes["late"] = "after"
            await exporter.sendWaiting()

            let spans = try await collector.spans(within: 10) { $0.count >= 3 }
            #expect(spans.count == 3, "\(spans.map(\.name))")
            let server = try #require(spans.first { $0.kind == "SPAN_KIND_SERVER" })
            #expect(server.name == String(repeating: "long ", count: 40))
            #expect(server.service == "gangway" && server.scope == "gangway")
            #expect(server.traceID == Self.callerTrace && server.parentSpanID == Self.callerSpan)
            #expect(server.traceState == "vendor=opaque" && server.flags == 1)
            #expect(server.durationNanoseconds >= 0)
            let shown = server.attributes.mapValues(\.description)
            #expect(
                shown == [
                    "text": "stand 12", "empty": "", "count": "-42", "zero": "0", "small": "7", "ratio": "2.5",
                    "none": "0", "yes": "true", "no": "false", "names": "[a, b]", "numbers": "[1, -2, 0]",
                    "flags": "[true, false]", "shares": "[0.5, 0]",
                    "described": "00000000-0000-0000-0000-000000000000",
                ],
                "\(shown)"
            )
            let link = try #require(server.links?.first)
            let read = try #require(spans.first { $0.name == "data source read" })
            #expect(link.traceID == read.traceID && link.spanID == read.spanID)
            #expect(link.attributes["why"]?.description == "started it")
            #expect(read.parentSpanID == nil && read.traceID != Self.callerTrace && read.kind == "SPAN_KIND_INTERNAL")

            let client = try #require(spans.first { $0.name == "SELECT devices" })
            #expect(client.kind == "SPAN_KIND_CLIENT" && client.parentSpanID == server.spanID)
            #expect(client.traceID == Self.callerTrace)
            #expect(client.status == 2 && client.statusMessage == "the database refused")
            #expect(client.events?.map(\.name) == ["retried", "exception"])
            #expect(client.events?.first?.attributes["attempt"]?.description == "2")
            #expect(
                client.events?.last?.attributes.mapValues(\.description)
                    == ["exception.type": "GangwayServerTests.OTLPExportTests.Failure"],
                "the error's type alone: its description may hold what a request carried"
            )
            #expect(client.events?.allSatisfy { $0.afterStartNanoseconds >= 0 } == true)
        }
    }

    @Test(
        "a request's span: its fields reach the collector as OpenTelemetry's HTTP attributes, a 5xx is an error, the caller's span its parent",
        .enabled(if: TestTraceCollector.isInstalled, "needs opentelemetry-proto in .build-oidc/venv (see .ci/run)")
    )
    func requestSpans() async throws {
        try await TestTraceCollector.using { collector in
            let (tracer, exporter, _) = Self.export(to: collector.url)
            let caller = RequestTrace.caller(
                traceparent: "00-\(Self.callerTrace)-\(Self.callerSpan)-01",
                tracestate: "vendor=opaque"
            )
            let settings = RequestSpanFields(method: "GET", route: "/apps/{appID}/settings", scheme: "https")
            let answered = tracer.startRequestSpan(settings, caller: caller)
            #expect(answered.isRecording && answered.operationName == "GET /apps/{appID}/settings")
            answered.answered(status: 200)
            // What the Span API reads holds the fields.
            var read: [String: SpanAttribute] = [:]
            answered.attributes.forEach { read[$0] = $1 }
            #expect(
                read == [
                    "http.request.method": "GET", "http.route": "/apps/{appID}/settings", "url.scheme": "https",
                    "http.response.status_code": 200,
                ]
            )
            answered.end()
            let failed = tracer.startRequestSpan(
                RequestSpanFields(method: "POST", route: "/apps/{appID}/sessions", scheme: "http"),
                caller: nil
            )
            failed.answered(status: 503)
            failed.end()
            // Attributes set through the Span API keep the fields with them, each once.
            let changed = tracer.startRequestSpan(settings, caller: nil)
            changed.attributes["extra"] = "added"
            changed.answered(status: 204)
            changed.end()
            await exporter.sendWaiting()

            let spans = try await collector.spans(within: 10) { $0.count >= 3 }
            #expect(spans.count == 3, "\(spans.map(\.name))")
            let first = try #require(spans.first { $0.parentSpanID == Self.callerSpan })
            #expect(first.name == "GET /apps/{appID}/settings" && first.kind == "SPAN_KIND_SERVER")
            #expect(first.traceID == Self.callerTrace && first.traceState == "vendor=opaque" && first.flags == 1)
            #expect(
                first.attributes.mapValues(\.description)
                    == [
                        "http.request.method": "GET", "http.route": "/apps/{appID}/settings", "url.scheme": "https",
                        "http.response.status_code": "200",
                    ]
            )
            #expect(first.status == 0, "an answer below 500 leaves the status unset")
            let refused = try #require(spans.first { $0.name == "POST /apps/{appID}/sessions" })
            #expect(refused.parentSpanID == nil && refused.traceID != Self.callerTrace && refused.status == 2)
            #expect(refused.attributes["http.response.status_code"]?.description == "503")
            #expect(refused.attributes["url.scheme"]?.description == "http")
            let added = try #require(spans.first { $0.attributes["extra"] != nil })
            #expect(
                added.attributes.mapValues(\.description)
                    == [
                        "http.request.method": "GET", "http.route": "/apps/{appID}/settings", "url.scheme": "https",
                        "http.response.status_code": "204", "extra": "added",
                    ]
            )
        }
    }

    @Test("a request's span the sampler left out: nothing the request runs makes a span; one it keeps, its children")
    func requestSpansAndTheirChildren() async throws {
        for ratio in [0.0, 1.0] {
            let queue = SpanQueue(capacity: 100, batchSize: 100)
            var random = SystemRandomNumberGenerator()
            let tracer = OTLPTracer(queue: queue, sampleRatio: ratio, random: &random)
            let fields = RequestSpanFields(method: "GET", route: "/apps/{appID}/data/{entitySet}", scheme: "http")
            let request = tracer.startRequestSpan(fields, caller: nil)
            #expect(request.isRecording == (ratio == 1))
            // The context says so to any tracer, one that would record every span too.
            let everything = InMemoryTracer()
            await InstrumentationContext.$current.withValue(request.context) {
                for inner in [ServerTracer(tracer), ServerTracer(everything)] {
                    await inner.withLeafSpan("SELECT entities") {}
                    await inner.withSpan("transaction") { _ in }
                }
            }
            request.answered(status: 200)
            request.end()
            let (spans, _) = queue.take(upTo: 100)
            if ratio == 0 {
                #expect(spans.isEmpty, "\(spans.map(\.name))")
                #expect(everything.finishedSpans.isEmpty, "\(everything.finishedSpans.map(\.operationName))")
            } else {
                #expect(spans.map(\.name) == ["SELECT entities", "transaction", "GET /apps/{appID}/data/{entitySet}"])
                #expect(spans.dropLast().allSatisfy { $0.parentSpanID == request.trace.spanID })
                #expect(spans.allSatisfy { $0.trace.traceID == request.trace.traceID })
            }
        }
    }

    @Test(
        "a batch of thousands of spans is one export, every span in it",
        .enabled(if: TestTraceCollector.isInstalled, "needs opentelemetry-proto in .build-oidc/venv (see .ci/run)")
    )
    func aLargeBatch() async throws {
        try await TestTraceCollector.using { collector in
            let (tracer, exporter, _) = Self.export(to: collector.url, capacity: 3_000, batch: 3_000)
            for number in 0..<3_000 {
                let span = tracer.startSpan("span \(number)", context: .topLevel, ofKind: .internal)
                span.attributes["number"] = number
                span.end()
            }
            await exporter.sendWaiting()
            let spans = try await collector.spans(within: 20) { $0.count >= 3_000 }
            #expect(spans.count == 3_000)
            #expect(Set(spans.map(\.name)) == Set((0..<3_000).map { "span \($0)" }))
            #expect(spans.allSatisfy { $0.attributes["number"]?.description == $0.name.dropFirst(5).description })
            #expect(Set(spans.map(\.spanID)).count == 3_000 && Set(spans.map(\.traceID)).count == 3_000)
        }
    }

    @Test("sampling keeps or drops whole traces by their ID's last 8 bytes, whatever the caller's flag says")
    func samplingByTraceID() throws {
        let queue = SpanQueue(capacity: 100_000, batchSize: 100)
        var random = SystemRandomNumberGenerator()
        let quarter = OTLPTracer(queue: queue, sampleRatio: 0.25, random: &random)
        // OpenTelemetry's TraceIdRatioBased: kept when the last 8 bytes are below
        // ratio × 2^64, here 0x4000000000000000.
        for (trace, kept) in [
            ("ffffffffffffffff3fffffffffffffff", true), ("00000000000000004000000000000000", false),
            ("00000000000000000000000000000001", true), ("ffffffffffffffffffffffffffffffff", false),
        ] {
            var context = ServiceContext.topLevel
            quarter.extract(
                ["traceparent": "00-\(trace)-00f067aa0ba902b7-00"],
                into: &context,
                using: DictionaryExtractor()
            )
            let span = quarter.startSpan("request", context: context, ofKind: .server)
            #expect(span.isRecording == kept, "\(trace)")
            let child = quarter.startSpan("statement", context: span.context, ofKind: .client)
            #expect(child.isRecording == kept, "the whole trace or none")
            // What goes on says whether it was kept.
            var carrier: [String: String] = [:]
            quarter.inject(child.context, into: &carrier, using: DictionaryExtractor())
            let sent = try #require(carrier["traceparent"]).split(separator: "-")
            #expect(sent[1] == trace && sent[3] == (kept ? "01" : "00"), "\(sent)")
            span.end()
            child.end()
        }
        #expect(queue.count == 4, "two traces of two spans kept")

        // New traces: about a quarter of 8,000 (binomial: 3σ is about 116).
        let kept = (0..<8_000).count(where: { _ in
            quarter.startSpan("r", context: .topLevel, ofKind: .server).isRecording
        })
        #expect((2_000 - 150)...(2_000 + 150) ~= kept, "\(kept)")
        let none = OTLPTracer(queue: queue, sampleRatio: 0, random: &random)
        let all = OTLPTracer(queue: queue, sampleRatio: 1, random: &random)
        #expect((0..<1_000).allSatisfy { _ in !none.startSpan("r", context: .topLevel, ofKind: .server).isRecording })
        #expect((0..<1_000).allSatisfy { _ in all.startSpan("r", context: .topLevel, ofKind: .server).isRecording })
        // A caller that asked for no sampling is sampled all the same at ratio 1.
        let asked = all.startSpan("r", context: Self.callerContext(all, flags: "00"), ofKind: .server)
        #expect(asked.isRecording)
    }

    /// A generator that gives back what it was given, for a seed a test chooses.
    struct FixedGenerator: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { value }
    }

    @Test("IDs: the same seed gives the same sequence; 100,000 of them all differ, none is zeros")
    func traceIDs() {
        var seed = FixedGenerator(value: 42)
        let (one, two) = (TraceIDSource(random: &seed), TraceIDSource(random: &seed))
        #expect((0..<10).map { _ in one.traceID() } == (0..<10).map { _ in two.traceID() })
        var system = SystemRandomNumberGenerator()
        let source = TraceIDSource(random: &system)
        let spans = (0..<100_000).map { _ in source.spanID() }
        let traces = (0..<100_000).map { _ in source.traceID() }
        #expect(Set(spans.map(\.description)).count == 100_000 && !spans.contains(.null))
        #expect(Set(traces.map(\.description)).count == 100_000 && !traces.contains(.null))
        // A request with no trace of its caller's starts one from the process's source.
        let trace = RequestTrace(traceparent: nil, tracestate: nil, ids: one)
        #expect(trace.context.traceID == two.traceID() && trace.context.spanID != .null)
    }

    @Test("a traceparent that is not valid starts a trace of its own; a broken tracestate is left out")
    func extractAndInject() throws {
        let (tracer, _, _) = Self.export(to: "http://127.0.0.1:1")
        for broken in [
            "", "00-\(Self.callerTrace)-\(Self.callerSpan)", "01-\(Self.callerTrace)-\(Self.callerSpan)-01x",
            "00-00000000000000000000000000000000-\(Self.callerSpan)-01", "00-\(Self.callerTrace)-0000000000000000-01",
            "00-\(Self.callerTrace.uppercased())-\(Self.callerSpan)-01", "zz-\(Self.callerTrace)-\(Self.callerSpan)-01",
        ] {
            var context = ServiceContext.topLevel
            tracer.extract(["traceparent": broken], into: &context, using: DictionaryExtractor())
            let span = tracer.startSpan("request", context: context, ofKind: .server)
            #expect(span.context.spanTrace?.traceID.description != Self.callerTrace, "\(broken)")
            span.end()
        }
        let kept = tracer.startSpan("r", context: Self.callerContext(tracer, state: "a=1,b=2"), ofKind: .server)
        let dropped = tracer.startSpan("r", context: Self.callerContext(tracer, state: "not a state"), ofKind: .server)
        var carrier: [String: String] = [:]
        tracer.inject(kept.context, into: &carrier, using: DictionaryExtractor())
        #expect(carrier["tracestate"]?.filter { $0 != " " } == "a=1,b=2", "\(carrier)")
        let parent = try #require(carrier["traceparent"])
        #expect(parent.hasPrefix("00-\(Self.callerTrace)-") && parent.hasSuffix("-01"))
        #expect(!parent.contains(Self.callerSpan), "the server's span is the parent of what goes on")
        carrier = [:]
        tracer.inject(dropped.context, into: &carrier, using: DictionaryExtractor())
        #expect(carrier["tracestate"] == nil && carrier["traceparent"]?.contains(Self.callerTrace) == true)
        // A context with no span writes nothing.
        carrier = [:]
        tracer.inject(.topLevel, into: &carrier, using: DictionaryExtractor())
        #expect(carrier.isEmpty)
    }

    @Test("a full queue drops new spans and a collector down costs its batch: each said once, with how many")
    func dropsAreSaid() async throws {
        let logs = LogCapture()
        let (tracer, exporter, queue) = Self.export(
            to: "http://127.0.0.1:1",
            capacity: 4,
            batch: 2,
            logger: logs.logger
        )
        for _ in 0..<10 { tracer.startSpan("r", context: .topLevel, ofKind: .server).end() }
        #expect(queue.count == 4)
        await exporter.sendWaiting()
        #expect(queue.count == 0, "the batches the collector never took are gone")
        let text = logs.text
        #expect(text.contains("Spans were dropped: more ended than the collector took in time"), "\(text)")
        #expect(text.contains(#""spans": 6"#) && text.contains(#""queue": 4"#), "\(text)")
        // The first batch's connection is refused; the second is dropped without trying.
        #expect(text.contains("Spans were not sent: the collector could not be reached"), "\(text)")
        #expect(text.contains(#"Spans were dropped: the collector failed ["spans": 2]"#), "\(text)")
        #expect(!text.contains("127.0.0.1"), "\(text)")
    }

    /// A collector that accepts connections and answers as `answer` says, on a thread
    /// of its own, until the listener closes.
    static func misbehavingCollector(_ listener: LoopbackListener, answer: String?) {
        Thread.detachNewThread {
            while true {
                let connection = accept(listener.descriptor, nil, nil)
                guard connection >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                _ = read(connection, &buffer, buffer.count)
                if let answer { _ = Array(answer.utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) } }
                // The connection stays open and silent.
            }
        }
    }

    @Test(
        "a collector that never answers, or begins an answer and stops, costs one timeout: the export goes on",
        .timeLimit(.minutes(1)),
        arguments: [nil, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial"]
    )
    func aSilentCollector(answer: String?) async throws {
        // An answer whose head says 200 took the spans, whatever its body does after.
        let took = answer != nil
        let listener = try LoopbackListener()
        defer { listener.close() }
        Self.misbehavingCollector(listener, answer: answer)
        let logs = LogCapture()
        let (tracer, made, queue) = Self.export(
            to: "http://127.0.0.1:\(listener.port)",
            capacity: 10,
            batch: 5,
            logger: logs.logger
        )
        var exporter = made
        exporter.timeout = .seconds(1)
        for _ in 0..<7 { tracer.startSpan("r", context: .topLevel, ofKind: .server).end() }
        await exporter.sendWaiting()
        #expect(queue.count == 0)
        let text = logs.text
        #expect(text.contains("Spans were not sent: the collector could not be reached") == !took, "\(text)")
        #expect(text.contains(#"Spans were dropped: the collector failed ["spans": 2]"#) == !took, "\(text)")
    }

    @Test(
        "while it runs, fewer than a batch go within the interval; at a graceful shutdown what waits goes",
        .enabled(if: TestTraceCollector.isInstalled, "needs opentelemetry-proto in .build-oidc/venv (see .ci/run)")
    )
    func runAndShutDown() async throws {
        try await TestTraceCollector.using { collector in
            let (tracer, made, _) = Self.export(to: collector.url, batch: 100)
            var exporter = made
            exporter.interval = .milliseconds(200)
            let group = ServiceGroup(services: [exporter], logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                tracer.startSpan("first", context: .topLevel, ofKind: .server).end()
                let first = try await collector.spans(within: 10) { !$0.isEmpty }
                #expect(first.map(\.name) == ["first"], "sent by the timer, not a batch")
                // Spans ended just before the shutdown still go.
                for number in 0..<5 { tracer.startSpan("last \(number)", context: .topLevel, ofKind: .server).end() }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            let spans = try await collector.spans()
            #expect(spans.count == 6, "\(spans.map(\.name))")
        }
    }
}

/// Headers in a dictionary, for a tracer to read from and write into.
struct DictionaryExtractor: Extractor, Injector {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }

    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}

import AsyncHTTPClient
import Foundation
import NIOCore

/// An OTLP/HTTP trace receiver on loopback for tracing tests, not Gangway's code:
/// `Tests/Fixtures/otlp/collector.py`, which decodes each export with the
/// `opentelemetry-proto` package (pinned in `Tests/Fixtures/oidc/requirements.txt`) as a
/// collector would, and keeps the spans. It runs in the same virtual environment as
/// ``TestIdentityProvider``, which `.ci/run` makes.
public struct TestTraceCollector: Sendable {
    /// A span as the collector received it.
    public struct Span: Sendable, Decodable, Hashable {
        /// The resource's `service.name`.
        public var service: String?
        /// 32 hex digits.
        public var traceID: String
        /// 16 hex digits.
        public var spanID: String
        /// The parent's span ID, when the span has one.
        public var parentSpanID: String?
        public var name: String
        /// `SPAN_KIND_SERVER`, `SPAN_KIND_CLIENT`, `SPAN_KIND_INTERNAL`…
        public var kind: String
        /// Each attribute's value as JSON (a string, a number or a boolean).
        public var attributes: [String: AttributeValue]
        /// 0 unset, 1 ok, 2 error.
        public var status: Int
        public var durationNanoseconds: Int64
        /// The instrumentation scope's name.
        public var scope: String?
        /// The W3C `tracestate`, empty when there is none.
        public var traceState: String?
        /// The span's flags: the W3C trace flags in the low byte.
        public var flags: Int?
        public var events: [Event]?
        public var links: [Link]?
        public var statusMessage: String?
        /// When the span started, in nanoseconds since 1970.
        public var startNanoseconds: UInt64?
    }

    /// An event of a span.
    public struct Event: Sendable, Decodable, Hashable {
        public var name: String
        public var attributes: [String: AttributeValue]
        public var afterStartNanoseconds: Int64
    }

    /// A link of a span to another.
    public struct Link: Sendable, Decodable, Hashable {
        public var traceID: String
        public var spanID: String
        public var attributes: [String: AttributeValue]
    }

    /// An attribute's value.
    public enum AttributeValue: Sendable, Decodable, Hashable, CustomStringConvertible {
        case text(String)
        case number(Double)
        case bool(Bool)
        case array([AttributeValue])
        case other

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else if let bool = try? container.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let values = try? container.decode([AttributeValue].self) {
                self = .array(values)
            } else {
                self = .other
            }
        }

        public var description: String {
            switch self {
            case .text(let text): text
            case .number(let number): number == number.rounded() ? String(Int64(number)) : String(number)
            case .bool(let bool): String(bool)
            case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
            case .other: "?"
            }
        }
    }

    /// The collector's base URL: what `serve --otlp-endpoint` takes.
    public let url: String
    private let process: Process
    private let input: Pipe

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/otlp/collector.py")

    /// Whether the collector can run here.
    public static var isInstalled: Bool { TestIdentityProvider.python != nil }

    /// Runs `body` with a collector, ended however `body` ends.
    public static func using<Result: Sendable>(
        _ body: (TestTraceCollector) async throws -> Result
    ) async throws
        -> Result
    {
        let (url, process, input) = try await TestDestinationBackend.launch(
            script: script,
            arguments: [],
            what: "the OTLP collector"
        )
        let collector = TestTraceCollector(url: url, process: process, input: input)
        do {
            let result = try await body(collector)
            await TestDestinationBackend.stop(process, input)
            return result
        } catch {
            await TestDestinationBackend.stop(process, input)
            throw error
        }
    }

    /// Every span received so far.
    public func spans() async throws -> [Span] {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: url + "/spans"),
            timeout: .seconds(10)
        )
        let body = try await response.body.collect(upTo: 64 << 20)
        return try JSONDecoder().decode([Span].self, from: Data(body.readableBytesView))
    }

    /// The spans received once `until` holds of them, asked every 100 ms for up to
    /// `seconds`; what was received by then otherwise.
    public func spans(within seconds: Double = 15, until done: ([Span]) -> Bool) async throws -> [Span] {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var received = try await spans()
        while !done(received), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            received = try await spans()
        }
        return received
    }
}

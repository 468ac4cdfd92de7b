import Foundation
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

/// W3C Trace Context through the server: a device's `traceparent` goes on to the
/// company's backend in the same trace, with the server's own span as its parent, and
/// the request's log line names the trace; a request with none, or a broken one, starts
/// a trace of its own.
@Suite("Trace context: the device's trace reaches the backend with the server's span as its parent", .servingTurn)
struct TraceContextTests {
    static let deviceTrace = "0af7651916cd43dd8448eb211c80319c"
    static let deviceSpan = "b7ad6b7169203331"

    /// The `traceparent`'s parts: version, trace, parent span, flags.
    static func parts(_ header: String?) throws -> [String] {
        let parts = try #require(header).split(separator: "-").map(String.init)
        try #require(parts.count == 4, "\(header ?? "")")
        #expect(parts[0] == "00" && parts[1].count == 32 && parts[2].count == 16 && parts[3].count == 2)
        #expect(parts.allSatisfy { $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        return parts
    }

    @Test(
        "same trace, the server's span as parent, flags and state as sent; once; and the log line names the trace",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func followed() async throws {
        try await DestinationTests.withBackend { fixture, api, _ in
            let alice = try await DestinationTests.device(api, "alice")
            let reply = try await api.send(
                .get,
                "/apps/checks/destinations/orders/trace",
                token: alice.token,
                headers: [
                    HTTPField.Name("traceparent")!: "00-\(Self.deviceTrace)-\(Self.deviceSpan)-01",
                    HTTPField.Name("tracestate")!: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7",
                ]
            )
            try reply.expect(.ok)
            let seen = try reply.json
            let parts = try Self.parts(seen["traceparent"] as? String)
            #expect(parts[1] == Self.deviceTrace)
            #expect(parts[2] != Self.deviceSpan && parts[2] != String(repeating: "0", count: 16))
            #expect(parts[3] == "01")
            // The same members in the same order (the list's spaces are the sender's to choose).
            let state = (seen["tracestate"] as? String)?.replacingOccurrences(of: " ", with: "")
            #expect(state == "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
            #expect(seen["count"] as? Int == 1, "the device's own traceparent does not go too")
            #expect(fixture.logs.text.contains("\"trace\": \(Self.deviceTrace)"), "\(fixture.logs.text.suffix(2000))")

            // Two requests of one trace are two spans of the server's.
            let again = try await api.send(
                .get,
                "/apps/checks/destinations/orders/trace",
                token: alice.token,
                headers: [HTTPField.Name("traceparent")!: "00-\(Self.deviceTrace)-\(Self.deviceSpan)-00"]
            )
            let second = try Self.parts(try again.json["traceparent"] as? String)
            #expect(second[1] == Self.deviceTrace && second[2] != parts[2] && second[3] == "00")
            #expect(try again.json["tracestate"] is NSNull)
        }
    }

    @Test(
        "none, or a broken one (another version, zeros, upper case, too short, a state past 512 bytes): a trace of its own",
        .enabled(if: TestDestinationBackend.isInstalled, "needs PyJWT in .build-oidc/venv (see .ci/run)")
    )
    func started() async throws {
        try await DestinationTests.withBackend { _, api, _ in
            let alice = try await DestinationTests.device(api, "alice")
            let broken = [
                nil, "ff-\(Self.deviceTrace)-\(Self.deviceSpan)-01",
                "00-\(String(repeating: "0", count: 32))-\(Self.deviceSpan)-01",
                "00-\(Self.deviceTrace)-\(String(repeating: "0", count: 16))-01",
                "00-\(Self.deviceTrace.uppercased())-\(Self.deviceSpan)-01", "00-\(Self.deviceTrace)-01",
                "garbage",
            ]
            var traces: Set<String> = []
            for header in broken {
                var headers: HTTPFields = [:]
                if let header { headers[HTTPField.Name("traceparent")!] = header }
                let reply = try await api.send(
                    .get,
                    "/apps/checks/destinations/orders/trace",
                    token: alice.token,
                    headers: headers
                )
                try reply.expect(.ok)
                let parts = try Self.parts(try reply.json["traceparent"] as? String)
                #expect(parts[1] != Self.deviceTrace.lowercased(), "\(header ?? "none")")
                #expect(parts[3] == "00")
                traces.insert(parts[1])
            }
            #expect(traces.count == broken.count, "each its own trace")

            let long = try await api.send(
                .get,
                "/apps/checks/destinations/orders/trace",
                token: alice.token,
                headers: [
                    HTTPField.Name("traceparent")!: "00-\(Self.deviceTrace)-\(Self.deviceSpan)-01",
                    HTTPField.Name("tracestate")!: "a=" + String(repeating: "b", count: 600),
                ]
            )
            #expect(try Self.parts(try long.json["traceparent"] as? String)[1] == Self.deviceTrace)
            #expect(try long.json["tracestate"] is NSNull)
        }
    }
}

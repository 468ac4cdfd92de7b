import Testing

@testable import GangwayServer

/// What of a caller's trace headers a tracer is handed: a valid `traceparent` alone,
/// with its `tracestate` only when that is valid and short enough; nothing broken, which
/// the tracer would log.
@Suite("A caller's trace headers reach the tracer only when valid")
struct RequestTraceTests {
    static let parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test(
        "a broken traceparent is none: another version, zeros, upper case, cut short, garbage",
        arguments: [
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-01", "garbage", "",
        ]
    )
    func brokenParent(header: String) {
        #expect(RequestTrace.accepted(traceparent: header, tracestate: "a=b") == nil)
    }

    @Test("a valid one passes; its state only when valid and at most 512 bytes")
    func validParent() throws {
        #expect(RequestTrace.accepted(traceparent: nil, tracestate: "a=b") == nil)
        let plain = try #require(RequestTrace.accepted(traceparent: Self.parent, tracestate: nil))
        #expect(plain.traceparent == Self.parent && plain.tracestate == nil)
        let stated = RequestTrace.accepted(traceparent: Self.parent, tracestate: "congo=t61rcWkgMzE")
        #expect(stated?.tracestate == "congo=t61rcWkgMzE")
        let long = "a=" + String(repeating: "b", count: 511)
        #expect(RequestTrace.accepted(traceparent: Self.parent, tracestate: long)?.tracestate == nil)
        #expect(RequestTrace.accepted(traceparent: Self.parent, tracestate: long)?.traceparent == Self.parent)
        #expect(RequestTrace.accepted(traceparent: Self.parent, tracestate: "not a state")?.tracestate == nil)
    }
}

import Foundation
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import NIOCore
import NIOPosix
import Testing

@testable import GangwayServer

@Suite(
    "Connections: a trickled head or body and a silent connection are closed; a cap answers 503; an unreadable head gets the error document",
    .servingTurn,
    .tags(.slow),
    .skipsTags
)
struct ConnectionTimeoutTests {
    /// A server with these timeouts. The margins below are wide, for a loaded machine:
    /// each test fails only when the timeout it checks does not act at all.
    private func fixture(head: Duration, idle: Duration) async throws -> ServerFixture {
        try await ServerFixture(over: .loopback) { configuration in
            configuration.requestHeadTimeout = head
            configuration.idleTimeout = idle
        }
    }

    @Test("a head sent a piece at a time, or never, is cut off at the head timeout")
    func trickledHead() async throws {
        try await fixture(head: .seconds(1), idle: .seconds(60)).runSeeded { api in
            let silent = try await Self.connect(port: api.running.port)
            let trickling = try await Self.connect(port: api.running.port)
            try? await trickling.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\n")).get()
            // A header line every 100 ms for 30 s keeps the connection from ever being idle.
            let trickler = Task {
                for index in 0..<300 where trickling.isActive {
                    try await Task.sleep(for: .milliseconds(100))
                    try? await trickling.writeAndFlush(ByteBuffer(string: "X-\(index): 1\r\n")).get()
                }
            }
            defer { trickler.cancel() }
            // Both long before the idle timeout (60 s) could have closed the silent one.
            #expect(try await Self.closes(trickling, within: .seconds(20)))
            #expect(try await Self.closes(silent, within: .seconds(20)))
        }
    }

    @Test("a whole request is answered, and the connection closed once it has been silent for the idle timeout")
    func idleAfterRequest() async throws {
        try await fixture(head: .seconds(60), idle: .seconds(3)).runSeeded { api in
            let answer = AnswerCollector()
            let channel = try await Self.connect(port: api.running.port, handler: answer)
            try await channel.writeAndFlush(ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")).get()
            #expect(try await Self.closes(channel, within: .seconds(20)))
            #expect(answer.text.hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test("a body sent a byte at a time, which the idle timeout never ends, is cut off at the body timeout")
    func trickledBody() async throws {
        let fixture = try await ServerFixture(over: .loopback) { configuration in
            configuration.requestBodyTimeout = .seconds(1)
            configuration.idleTimeout = .seconds(60)
        }
        try await fixture.runSeeded { api in
            let trickling = try await Self.connect(port: api.running.port)
            try await trickling.writeAndFlush(
                ByteBuffer(
                    string: "POST /apps/checks/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 1000\r\n\r\n{"
                )
            ).get()
            let trickler = Task {
                for _ in 0..<300 where trickling.isActive {
                    try await Task.sleep(for: .milliseconds(100))
                    try? await trickling.writeAndFlush(ByteBuffer(string: " ")).get()
                }
            }
            defer { trickler.cancel() }
            #expect(try await Self.closes(trickling, within: .seconds(20)))
            // A whole request still goes through.
            try api.expectStatus(try await api.send(.get, "/health"), .ok)
        }
    }

    /// A new connection from `source` with a request under way: first answered a `GET`
    /// of `path`, so the server has counted it (connections made a moment apart may be
    /// counted in another order: the server's event loops take them), then sent a request
    /// head that promises a body it never sends.
    private static func busy(
        port: Int,
        from source: String = "127.0.0.1",
        path: String = "/health"
    ) async throws -> any Channel {
        let answer = AnswerCollector()
        let channel = try await connect(port: port, from: source, handler: answer)
        try await channel.writeAndFlush(ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")).get()
        let deadline = ContinuousClock.now + .seconds(20)
        while !answer.text.hasPrefix("HTTP/1.1 200"), ContinuousClock.now < deadline, channel.isActive {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(answer.text.hasPrefix("HTTP/1.1 200"), "a connection to hold busy was not served: \(answer.text)")
        try await channel.writeAndFlush(
            ByteBuffer(string: "POST /apps/checks/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
        ).get()
        return channel
    }

    /// What a new connection from `source` is answered to a `GET` of `path` once `count`
    /// others from it each hold a request under way, and those connections (closed when
    /// the answer is not `expected`'s).
    ///
    /// The server reads each held request on its own event loop, which a loaded machine
    /// may keep from it for a moment: one not yet read is a silent connection that gives
    /// way to the new one. So an answer other than `expected` is asked again, after a
    /// longer pause, three times in all: a server that never answers `expected` still
    /// fails.
    private static func answer(
        past count: Int,
        busy port: Int,
        from source: String = "127.0.0.1",
        path: String = "/health",
        expected: String
    ) async throws -> (answer: String, busy: [any Channel]) {
        var answer = ""
        for pause in [Duration.milliseconds(200), .seconds(1), .seconds(3)] {
            var busy: [any Channel] = []
            for _ in 0..<count { busy.append(try await Self.busy(port: port, from: source, path: path)) }
            try await Task.sleep(for: pause)
            answer = try await Self.health(port: port, from: source, path: path)
            if answer.hasPrefix(expected) { return (answer, busy) }
            for channel in busy { try? await channel.close() }
            try await Task.sleep(for: pause)
        }
        return (answer, [])
    }

    /// `GET path` (`/health`) on a new connection from `source`: what the server answers.
    private static func health(
        port: Int,
        from source: String = "127.0.0.1",
        path: String = "/health"
    ) async throws -> String {
        let answer = AnswerCollector()
        let channel = try await connect(port: port, from: source, handler: answer)
        try await channel.writeAndFlush(
            ByteBuffer(string: "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        ).get()
        #expect(try await closes(channel, within: .seconds(20)))
        return answer.text
    }

    @Test(
        "at the connection cap, the connection silent longest gives way; with every one busy, one more is answered 503 and closed"
    )
    func connectionCap() async throws {
        let fixture = try await ServerFixture(over: .loopback) { configuration in
            configuration.maximumConnections = 4
            configuration.maximumConnectionsPerAddress = 4
            configuration.metricsAddress = .init(host: "127.0.0.1", port: 0)
        }
        try await fixture.runSeeded { api in
            // Four connections held open without a request (the fourth takes the place of
            // the test client's own, silent since the seeding): the oldest gives way to a
            // new one, and the new one is served.
            var held: [any Channel] = []
            for index in 0..<4 {
                held.append(try await Self.connect(port: api.running.port))
                // The first is the oldest by a second: the server's event loops may see
                // connections made milliseconds apart in another order on a loaded machine
                // (the browser's tests run beside this one), and then close another.
                try await Task.sleep(for: index == 0 ? .seconds(1) : .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(100))
            let served = try await Self.health(port: api.running.port)
            #expect(served.hasPrefix("HTTP/1.1 200"), "\(served)")
            #expect(try await Self.closes(held[0], within: .seconds(20)), "the silent one closed to make room")
            for channel in held { try? await channel.close() }
            try await Task.sleep(for: .milliseconds(200))

            // Every place taken by a request under way: one more is answered 503.
            let (refused, held503) = try await Self.answer(past: 4, busy: api.running.port, expected: "HTTP/1.1 503")
            var busy = held503
            #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
            #expect(refused.lowercased().contains("retry-after: 1"))
            #expect(Self.requests(fixture, route: "connection-cap", status: 503).map { $0 >= 1 } == true)
            // One ended frees a place.
            try #require(!busy.isEmpty)
            try await busy.removeLast().close()
            try await Task.sleep(for: .milliseconds(200))
            let next = try await Self.health(port: api.running.port)
            #expect(next.hasPrefix("HTTP/1.1 200"), "\(next)")
            for channel in busy { try? await channel.close() }
        }
    }

    @Test("the console on an address of its own counts its connections apart: devices filling theirs keep no one out")
    func consoleCountedApart() async throws {
        let fixture = try await ServerFixture(over: .loopback) { configuration in
            configuration.maximumConnections = 4
            configuration.maximumConnectionsPerAddress = 4
            configuration.consoleAddress = .init(host: "127.0.0.1", port: 0)
        }
        try await fixture.runSeeded { api in
            var consolePort: Int?
            for _ in 0..<200 where consolePort == nil {
                consolePort = fixture.server.consoleAddressURL.flatMap { URL(string: $0)?.port }.flatMap {
                    $0 > 0 ? $0 : nil
                }
                if consolePort == nil { try await Task.sleep(for: .milliseconds(25)) }
            }
            let console = try #require(consolePort, "the console listens")
            // Every place of the devices' address taken by a request under way.
            let (refused, busy) = try await Self.answer(past: 4, busy: api.running.port, expected: "HTTP/1.1 503")
            #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
            // The console's own address is served all the while, and the other way round.
            let served = try await Self.health(port: console, path: "/console/sign-in")
            #expect(served.hasPrefix("HTTP/1.1 200"), "\(served)")
            for channel in busy { try? await channel.close() }
            try await Task.sleep(for: .milliseconds(500))
            let (consoleRefused, consoleBusy) = try await Self.answer(
                past: 4,
                busy: console,
                path: "/console/sign-in",
                expected: "HTTP/1.1 503"
            )
            #expect(consoleRefused.hasPrefix("HTTP/1.1 503"), "\(consoleRefused)")
            #expect(try await Self.health(port: api.running.port).hasPrefix("HTTP/1.1 200"))
            for channel in consoleBusy { try? await channel.close() }
        }
    }

    @Test("one address holds at most its share of the connections; other addresses, and a trusted proxy, are served")
    func connectionsPerAddress() async throws {
        for proxy in [false, true] {
            let fixture = try await ServerFixture(over: .loopback) { configuration in
                configuration.maximumConnections = 100
                configuration.maximumConnectionsPerAddress = 3
                if proxy { configuration.trustedProxies = [AddressRange("127.0.0.3/32")!] }
            }
            try await fixture.runSeeded { api in
                for source in ["127.0.0.2", "127.0.0.3"] {
                    let exempt = proxy && source == "127.0.0.3"
                    let expected = exempt ? "HTTP/1.1 200" : "HTTP/1.1 503"
                    let (more, held) = try await Self.answer(
                        past: 3,
                        busy: api.running.port,
                        from: source,
                        expected: expected
                    )
                    #expect(more.hasPrefix(expected), "\(source): \(more)")
                    // Another address is served all the while.
                    let other = try await Self.health(port: api.running.port, from: "127.0.0.4")
                    #expect(other.hasPrefix("HTTP/1.1 200"), "\(other)")
                    for channel in held { try? await channel.close() }
                }
            }
        }
    }

    @Test(
        "a head past 80 KiB is a 431, a request line or header that is not HTTP a 400, each with the error document, and the connection closed",
        arguments: [
            (
                "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n", 431,
                "80 KiB"
            ),
            (
                "GET /health HTTP/1.1\r\nHost: x\r\n"
                    + (0..<2_000).map { "X-\($0): \(String(repeating: "b", count: 40))\r\n" }.joined() + "\r\n",
                431, "80 KiB"
            ),
            ("NOT HTTP AT ALL\r\n\r\n", 400, "cannot read this request as HTTP/1.1"),
            ("GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", 400, "a header"),
            ("POST /apps/checks/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: nine\r\n\r\n", 400, "Content-Length"),
        ]
    )
    func unreadableHead(request: String, status: Int, words: String) async throws {
        let fixture = try await ServerFixture(over: .loopback) { $0.metricsAddress = .init(host: "127.0.0.1", port: 0) }
        try await fixture.runSeeded { api in
            let answer = AnswerCollector()
            let channel = try await Self.connect(port: api.running.port, handler: answer)
            try await channel.writeAndFlush(ByteBuffer(string: request)).get()
            #expect(try await Self.closes(channel, within: .seconds(20)))
            let text = answer.text
            #expect(text.hasPrefix("HTTP/1.1 \(status) "), "\(text.prefix(300))")
            #expect(text.lowercased().contains("connection: close"), "\(text.prefix(300))")
            #expect(text.lowercased().contains("x-request-id: "), "\(text.prefix(300))")
            let body = try #require(text.range(of: "\r\n\r\n").map { text[$0.upperBound...] })
            let document = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            #expect(document?["code"] as? String == "BAD_REQUEST")
            #expect((document?["message"] as? String)?.contains(words) == true, "\(body)")
            // Counted in the operator's figures, under a label of its own.
            #expect(Self.requests(fixture, route: "unreadable", status: status) == 1)
            // The server goes on serving.
            try api.expectStatus(try await api.send(.get, "/health"), .ok)
        }
    }

    /// The requests `fixture`'s server counted under `route` and `status`, from its
    /// exposition; `nil` when it has no such line.
    private static func requests(_ fixture: ServerFixture, route: String, status: Int) -> Double? {
        let text = String(decoding: fixture.server.metrics.exposition(), as: UTF8.self)
        let line = text.split(separator: "\n").first {
            $0.hasPrefix("gangway_http_requests_total{") && $0.contains("route=\"\(route)\"")
                && $0.contains("status=\"\(status)\"")
        }
        return line?.split(separator: " ").last.flatMap { Double($0) }
    }

    @Test("a CONNECT, which no route takes, is answered and its connection closed: the answer has no length to end it")
    func connectIsClosed() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let answer = AnswerCollector()
            let channel = try await Self.connect(port: api.running.port, handler: answer)
            // A request sent after it is never taken as part of the tunnel's answer.
            try await channel.writeAndFlush(
                ByteBuffer(string: "CONNECT /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            ).get()
            // Well within the idle timeout (60 s) that closed it before.
            #expect(try await Self.closes(channel, within: .seconds(20)))
            #expect(answer.text.hasPrefix("HTTP/1.1 405 "), "\(answer.text.prefix(300))")
            #expect(answer.text.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer: \(answer.text)")
            try api.expectStatus(try await api.send(.get, "/health"), .ok)
        }
    }

    @Test("an Upgrade request is answered and its connection closed: nothing sent behind it waits for the idle timeout")
    func upgradeIsClosed() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let answer = AnswerCollector()
            let channel = try await Self.connect(port: api.running.port, handler: answer)
            try await channel.writeAndFlush(
                ByteBuffer(
                    string: "GET /health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                        + "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                )
            ).get()
            #expect(try await Self.closes(channel, within: .seconds(20)))
            #expect(answer.text.hasPrefix("HTTP/1.1 200 "), "\(answer.text.prefix(300))")
        }
    }

    @Test("an unreadable request after a whole one is refused after that one's answer, never inside it")
    func unreadableAfterPipelined() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let answer = AnswerCollector()
            let channel = try await Self.connect(port: api.running.port, handler: answer)
            try await channel.writeAndFlush(
                ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n")
            ).get()
            #expect(try await Self.closes(channel, within: .seconds(20)))
            let text = answer.text
            #expect(text.hasPrefix("HTTP/1.1 200"), "\(text.prefix(300))")
            let refusal = try #require(text.range(of: "HTTP/1.1 400"), "\(text)")
            #expect(text[..<refusal.lowerBound].contains("\r\n\r\n"))
        }
    }

    private static func connect(
        port: Int,
        from source: String = "127.0.0.1",
        handler: AnswerCollector? = nil
    ) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                guard let handler else { return channel.eventLoop.makeSucceededVoidFuture() }
                return channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
            .bind(to: try SocketAddress(ipAddress: source, port: 0))
            .connect(host: "127.0.0.1", port: port).get()
    }

    /// Whether the server closes `channel` before `limit` passes.
    private static func closes(_ channel: any Channel, within limit: Duration) async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await channel.closeFuture.get()
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            if !first { try? await channel.close() }
            return first
        }
    }
}

/// Collects what the server sends on a raw connection.
private final class AnswerCollector: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private var received = ByteBuffer()
    private let lock = NSLock()

    var text: String { lock.withLock { String(buffer: received) } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        lock.withLock { _ = received.writeBuffer(&buffer) }
    }
}

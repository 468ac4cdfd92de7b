import Foundation
import GangwayServer
import GangwayServerTesting
import NIOCore
import NIOPosix
import Testing

@Suite("Connections: a trickled request head and a silent connection are closed", .servingTurn)
struct ConnectionTimeoutTests {
    /// A server with these timeouts. The margins below are wide, for a loaded machine:
    /// each test fails only when the timeout it checks does not act at all.
    private func fixture(head: Duration, idle: Duration) async throws -> ServerFixture {
        try await ServerFixture { configuration in
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

    private static func connect(port: Int, handler: AnswerCollector? = nil) async throws -> any Channel {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                guard let handler else { return channel.eventLoop.makeSucceededVoidFuture() }
                return channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
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

import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Serves at most ``Count/limit`` connections at once: one more is answered `503 Service
/// Unavailable` with `Retry-After` at its first request and closed, so a flood of
/// connections costs the server a fixed amount of memory and never the ones it serves.
final class ConnectionCap: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The connections open now, shared by every connection of one server.
    final class Count: Sendable {
        let limit: Int
        private let open = Atomic<Int>(0)

        init(limit: Int) {
            self.limit = max(1, limit)
        }

        /// Counts one more; whether it is within the limit.
        func enter() -> Bool {
            open.add(1, ordering: .relaxed).newValue <= limit
        }

        func leave() {
            open.subtract(1, ordering: .relaxed)
        }

        var current: Int { open.load(ordering: .relaxed) }
    }

    private let count: Count
    private var counted = false
    private var refused = false

    init(_ count: Count) {
        self.count = count
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { enter() }
    }

    func channelActive(context: ChannelHandlerContext) {
        enter()
        context.fireChannelActive()
    }

    private func enter() {
        guard !counted else { return }
        counted = true
        refused = !count.enter()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard refused else {
            context.fireChannelRead(data)
            return
        }
        guard case .head = unwrapInboundIn(data) else { return }
        let head = HTTPResponse(
            status: .serviceUnavailable,
            headerFields: [.retryAfter: "1", .connection: "close", .contentLength: "0"]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leave()
    }

    private func leave() {
        guard counted else { return }
        counted = false
        count.leave()
    }
}

import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request has not sent its whole body within a time of its
/// head: a client that trickles a body a byte at a time (which the idle timeout, reset by
/// each byte, never ends) holds a connection no longer than that.
///
/// It sits after the HTTP codec: each request head starts the wait, and the request's end
/// stops it.
final class RequestBodyTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(_ timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            timer?.cancel()
            let channel = context.channel
            timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        case .end:
            timer?.cancel()
            timer = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}

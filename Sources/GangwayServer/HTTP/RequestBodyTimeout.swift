import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request has not sent its whole body within a time of its
/// head: a client that trickles a body a byte at a time (which the idle timeout, reset by
/// each byte, never ends) holds a connection no longer than that.
///
/// It sits after the HTTP codec: each request head starts the wait, and the request's end
/// stops it. The timer is set only for a request still unfinished when a read ends: a
/// request whose head and end come in one read (every `GET`, most small bodies) costs no
/// timer at all, and one set later still fires at the head's time plus the timeout.
final class RequestBodyTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    /// When the unfinished request's body must have ended; `nil` between requests.
    private var deadline: NIODeadline?
    private var timer: Scheduled<Void>?

    init(_ timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            cancel()
            deadline = .now() + timeout
        case .end:
            cancel()
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if let deadline, timer == nil {
            let channel = context.channel
            timer = context.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
        }
        context.fireChannelReadComplete()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    private func cancel() {
        timer?.cancel()
        timer = nil
        deadline = nil
    }
}

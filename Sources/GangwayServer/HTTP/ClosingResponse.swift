import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes the connection once a response that says `Connection: close` is written: the
/// server says so when it will not read the rest of a request (a body too large), so a
/// client cannot make it read and throw away what it keeps sending.
///
/// The answer to a `CONNECT` (which no route takes) closes the connection too: HTTP/1's
/// encoder gives such an answer no length, so only the end of the connection tells the
/// client where it ends.
final class ClosingResponse: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closing = false
    /// The requests read and not yet answered, in order: whether each was a `CONNECT`.
    private var connects: [Bool] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { connects.append(head.method == .connect) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            // An interim answer (100 Continue) is not the request's answer.
            let connect = head.status.kind != .informational && !connects.isEmpty && connects.removeFirst()
            closing = connect || head.headerFields[.connection]?.lowercased() == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closing else {
                context.write(data, promise: promise)
                return
            }
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

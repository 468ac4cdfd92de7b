import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes the connection once a response that says `Connection: close` is written: the
/// server says so when it will not read the rest of a request (a body too large), so a
/// client cannot make it read and throw away what it keeps sending.
final class ClosingResponse: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closing = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closing = head.headerFields[.connection]?.lowercased() == "close"
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

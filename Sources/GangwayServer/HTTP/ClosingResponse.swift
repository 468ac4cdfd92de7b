import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes the connection once a response that says `Connection: close` is written: the
/// server says so when it will not read the rest of a request (a body too large), so a
/// client cannot make it read and throw away what it keeps sending.
///
/// The answer to a `CONNECT` or an `Upgrade` request (which no route takes) closes the
/// connection too: HTTP/1's decoder reads nothing after such a request, so a request
/// sent behind it would wait for an answer until the idle timeout; and the encoder gives
/// a `CONNECT`'s answer no length, so only the end of the connection tells the client
/// where it ends.
final class ClosingResponse: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closing = false
    /// The requests read and not yet answered, in order: whether each ends its connection.
    private var endsConnection = CircularBuffer<Bool>()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            let upgrade =
                head.headerFields[.upgrade] != nil
                && head.headerFields[values: .connection].contains { $0.lowercased().contains("upgrade") }
            endsConnection.append(head.method == .connect || upgrade)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            // An interim answer (100 Continue) is not the request's answer; 101 is, as
            // NIO's encoder counts it.
            var ends = false
            if head.status.kind != .informational || head.status.code == 101, !endsConnection.isEmpty {
                ends = endsConnection.removeFirst()
            }
            closing = ends || head.headerFields[.connection]?.lowercased() == "close"
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

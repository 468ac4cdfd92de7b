import NIOCore

/// Closes a connection that has not sent a whole request head within a time of its
/// opening: a client that trickles its headers a byte at a time (or sends nothing) holds
/// a connection no longer than that, whatever the idle timeout.
///
/// It sits after the HTTP decoder, which passes a request on only once its head is
/// complete, so the first message it sees ends the wait; it then leaves the pipeline,
/// and the idle timeout watches the connection from there.
final class RequestHeadTimeout: ChannelInboundHandler, RemovableChannelHandler {
    /// Never unwrapped: any message the decoder passes on means a head arrived.
    typealias InboundIn = Never

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(_ timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        timer?.cancel()
        timer = nil
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) {
            channel.close(promise: nil)
        }
    }
}

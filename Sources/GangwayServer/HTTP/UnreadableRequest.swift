import GangwayProtocol
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers a request the HTTP decoder cannot read (a head longer than
/// ``headLimit``, a malformed request line or header) with the API's error document and
/// `Connection: close`, where Hummingbird would answer an empty `400`: a client, or the
/// person reading its log, learns what was wrong.
///
/// It answers only between requests: while a request is read, or its answer is written,
/// the error goes on to Hummingbird, whose answer then follows the one being written
/// rather than cutting into it.
final class UnreadableRequest: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The most a request's head (request line and headers) may hold: Hummingbird's
    /// default, stated here so the decoder and the message say the same.
    static let headLimit = 80 << 10

    /// The answer to an error: the API's error document, with the peer for the log.
    typealias Answer = @Sendable (_ error: APIError, _ peer: SocketAddress?) -> (HTTPResponse, ByteBuffer)

    private let answer: Answer
    private var heads = 0
    private var ends = 0
    private var answered = 0
    private var refused = false

    init(answer: @escaping Answer) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: heads += 1
        case .end: ends += 1
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { answered += 1 }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        guard !refused else { return }
        guard heads == ends, answered == heads else {
            context.fireErrorCaught(error)
            return
        }
        var (head, body) = answer(Self.refusal(of: parserError), context.channel.remoteAddress)
        // ClosingResponse ends the connection once this is written.
        head.headerFields[.connection] = "close"
        head.headerFields[.contentLength] = String(body.readableBytes)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        refused = true
    }

    /// What the decoder's error means to the client.
    static func refusal(of error: HTTPParserError) -> APIError {
        let part: String
        switch error {
        case .headerOverflow:
            return APIError(
                .requestHeaderFieldsTooLarge,
                .badRequest,
                "The request's line and headers are longer than the server reads (\(headLimit >> 10) KiB): "
                    + "send fewer or shorter headers."
            )
        case .invalidMethod: part = "its method"
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort:
            part = "its target"
        case .invalidVersion: part = "its HTTP version"
        case .invalidContentLength, .unexpectedContentLength: part = "its Content-Length"
        case .invalidChunkSize: part = "its chunked body"
        case .invalidHeaderToken, .invalidCharactersUsed, .lfExpected, .invalidConstant:
            part = "its request line or a header"
        default: part = "its bytes"
        }
        return APIError.badRequest("The server cannot read this request as HTTP/1.1 (\(part)): nothing was done.")
    }
}

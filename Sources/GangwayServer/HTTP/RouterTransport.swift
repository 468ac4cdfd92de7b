import HTTPTypes
import Hummingbird
import NIOCore
import OpenAPIRuntime

/// Puts the generated server's operations on Gangway's router, answering each with its
/// body in one buffer.
///
/// swift-openapi-hummingbird's transport streams every response body through a writer
/// closure, which Hummingbird sends as three writes (head, body, end). The API's bodies
/// are JSON or a PNG whose length is known once the handler returns, so this transport
/// collects them and hands Hummingbird a single buffer, which it sends as one write with
/// the head: most of the generated path's cost against a bare route. A body of unknown
/// length is still streamed.
///
/// A route whose request body streams (``RouteTable/streamedTemplates``, an ingest batch)
/// gets the body as it comes, read once, never collected.
struct RouterTransport: ServerTransport {
    let router: Router<ServerContext>
    /// `METHOD template` of the routes whose request body streams.
    var streamed: Set<String> = []

    func register(
        _ handler:
            @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (
                HTTPResponse, HTTPBody?
            ),
        method: HTTPRequest.Method,
        path: String
    ) throws {
        let streams = streamed.contains("\(method.rawValue) \(path)")
        router.on(RouterPath(path), method: method) { request, context in
            let body: HTTPBody
            if streams {
                body = HTTPBody(
                    request.body.map { $0.readableBytesView[...] },
                    length: request.headers[.contentLength].flatMap(Int64.init).map { .known($0) } ?? .unknown,
                    iterationBehavior: .single
                )
            } else {
                // GatewayMiddleware collected the body already, up to its limit.
                let bytes = try await request.body.collect(upTo: context.maxUploadSize)
                body = HTTPBody(bytes.readableBytesView)
            }
            var parameters: [String: Substring] = [:]
            for (name, value) in context.parameters where parameters[String(name)] == nil {
                parameters[String(name)] = value
            }
            let (head, responseBody) = try await handler(
                request.head,
                body,
                ServerRequestMetadata(pathParameters: parameters)
            )
            return Response(status: head.status, headers: head.headerFields, body: try await Self.body(responseBody))
        }
    }

    /// One buffer for a body of known length; a stream otherwise.
    private static func body(_ body: HTTPBody?) async throws -> ResponseBody {
        guard let body else { return ResponseBody() }
        guard case .known(let length) = body.length else {
            return ResponseBody(asyncSequence: body.map { ByteBuffer(bytes: $0) })
        }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(Int(length))
        for try await chunk in body { buffer.writeBytes(chunk) }
        return ResponseBody(byteBuffer: buffer)
    }
}

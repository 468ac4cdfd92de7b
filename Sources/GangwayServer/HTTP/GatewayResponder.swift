import Hummingbird

/// Every request's path through the server: the device reads' own path
/// (``DeviceReadRoute``) and the destinations' (``DestinationProxy``, whose bodies
/// stream) inside ``GatewayMiddleware``, or else the router, whose routes all run inside
/// the same middleware.
///
/// The settings exchange and the app-data read are what devices repeat all day; answering
/// them before the route lookup and the generated server's request conversion, with bytes
/// encoded once per value, is what brings them near a bare route's speed.
struct GatewayResponder: HTTPResponder {
    typealias Context = ServerContext

    let gateway: GatewayMiddleware
    /// `nil` on the console's own address, which serves no device.
    let deviceReads: DeviceReadRoute?
    /// `nil` on the console's own address too.
    let destinations: DestinationProxy?
    let router: RouterResponder<ServerContext>

    func respond(to request: Request, context: ServerContext) async throws -> Response {
        // HEAD is GET without the body (RFC 9110, 9.3.2) on every route that answers GET;
        // a destination's backend gets the HEAD itself.
        guard request.method == .head, destinations == nil || DestinationProxy.target(inPath: request.uri.path) == nil
        else { return try await route(request, context: context) }
        var head = request.head
        head.method = .get
        var context = context
        context.isHead = true
        var response = try await route(Request(head: head, body: request.body), context: context)
        // The length GET's body has, and none of its bytes.
        response.body = ResponseBody(contentLength: response.body.contentLength) { writer in
            try await writer.finish(nil)
        }
        return response
    }

    private func route(_ request: Request, context: ServerContext) async throws -> Response {
        if let destinations, let target = DestinationProxy.target(inPath: request.uri.path) {
            return try await gateway.handle(request, context: context, body: .streamedByProxy) { request, _ in
                try await destinations.respond(to: request, target: target)
            }
        }
        guard let deviceReads, let read = DeviceReadRoute.read(of: request) else {
            return try await router.respond(to: request, context: context)
        }
        return try await gateway.handle(request, context: context) { _, _ in
            try await deviceReads.respond(to: read)
        }
    }
}

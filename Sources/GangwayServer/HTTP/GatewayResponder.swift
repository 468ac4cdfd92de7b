import Hummingbird

/// Every request's path through the server: the settings exchange's fast path
/// (``SettingsExchangeRoute``) inside ``GatewayMiddleware``, or else the router, whose
/// routes all run inside the same middleware.
///
/// The settings exchange is the call every device makes on every launch; answering it
/// before the route lookup and the generated server's request conversion is most of
/// what brings it near a bare route's speed.
struct GatewayResponder: HTTPResponder {
    typealias Context = ServerContext

    let gateway: GatewayMiddleware
    let settings: SettingsExchangeRoute
    let router: RouterResponder<ServerContext>

    func respond(to request: Request, context: ServerContext) async throws -> Response {
        guard let appID = SettingsExchangeRoute.appID(of: request) else {
            return try await router.respond(to: request, context: context)
        }
        return try await gateway.handle(request, context: context) { _, _ in
            try await settings.respond(appID: appID)
        }
    }
}

import Hummingbird

/// One of the server's own pages of an app's OAuth (``OAuthPaths/Page``) that a person
/// fills in: shown at a `GET` of its path, its form answered at a `POST`.
protocol OAuthPageRoutes: Sendable {
    var api: MobileServicesAPI { get }
    /// Which page this is.
    static var page: OAuthPaths.Page { get }
    /// The page, for a `GET`.
    func show(_ request: Request, context: ServerContext) async -> Response
    /// The answer to its form, for a `POST`.
    func decide(_ request: Request, context: ServerContext) async -> Response
}

extension OAuthPageRoutes {
    /// What the API's handlers share: storage, keys, settings, clock and logger.
    var services: APIServices { api.services }
    /// The sign-in the pages' password forms make, as the API's.
    var sessions: SessionsHandler { api.sessions }

    /// Routes the page: ``show(_:context:)`` answers `GET`, ``decide(_:context:)`` `POST`.
    func register(on router: Router<ServerContext>) {
        Self.page.register(
            on: router,
            show: { await show($0, context: $1) },
            answer: { await decide($0, context: $1) }
        )
    }
}

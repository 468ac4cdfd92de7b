import GangwayServerStorage
import Hummingbird

/// A form a signed-in operator sent from the console's own page: its fields, their
/// browser, and who they are.
struct SentForm: Sendable {
    var fields: [String: String]
    var browser: FormGuard.Browser
    var record: OperatorRecord
}

/// How every page and form of the console is put on the router: the signed-in guard is
/// here, once, and no handler repeats it.
extension OperatorConsole {
    /// A page (GET) for a signed-in operator; anyone else is sent to sign in.
    func page(
        _ router: Router<ServerContext>,
        _ path: String,
        _ handler: @escaping @Sendable (Request, ServerContext, OperatorRecord) async throws -> Response
    ) {
        router.get(RouterPath(path)) { request, context in
            guard let (_, record) = await signedIn(request) else { return Self.redirect(to: ConsolePaths.signIn) }
            return try await handler(request, context, record)
        }
    }

    /// A form (POST) a signed-in operator sends: one not sent from the console's own page
    /// in this browser is refused first (403, nothing done), then anyone not signed in is
    /// sent to sign in.
    func action(
        _ router: Router<ServerContext>,
        _ path: String,
        _ handler: @escaping @Sendable (Request, ServerContext, SentForm) async throws -> Response
    ) {
        router.post(RouterPath(path)) { request, context in
            guard case .form(let fields, let browser) = await form(request) else { return await refused(request) }
            guard let (_, record) = await signedIn(request) else { return Self.redirect(to: ConsolePaths.signIn) }
            return try await handler(request, context, SentForm(fields: fields, browser: browser, record: record))
        }
    }
}

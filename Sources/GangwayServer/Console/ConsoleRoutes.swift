import GangwayConsole
import GangwayForms
import GangwayServerStorage
import Hummingbird

/// A form a signed-in operator sent from the console's own page: its fields, their
/// browser, and who they are.
struct SentForm: Sendable {
    var fields: [String: String]
    var browser: FormGuard.Browser
    var record: OperatorRecord
}

/// Who is signed in to the console, and the form they sent: what ``ConsoleGuard`` found,
/// carried from the gateway's context into the console's.
struct ConsoleCaller: Sendable {
    var record: OperatorRecord
    /// The form of a POST, checked to come from the console's own page in this browser;
    /// `nil` for a page.
    var form: SentForm?
}

/// The request context of every console page and form past the sign-in: the signed-in
/// operator is in it, never optional, so no handler can forget to ask.
///
/// Made from the server's context only behind ``ConsoleGuard``, which puts the operator
/// there; a route registered in the console's group without it fails with 500 before
/// its handler runs, and shows nothing.
struct ConsoleContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    let caller: ConsoleCaller

    init(context: ServerContext) throws {
        guard let caller = context.consoleCaller else { throw HTTPError(.internalServerError) }
        coreContext = context.coreContext
        self.caller = caller
    }

    /// Bodies are limited by ``GatewayMiddleware``; this is Hummingbird's own cap.
    var maxUploadSize: Int { GatewayMiddleware.maximumBodySize }
}

/// The console's signed-in guard, once, as the middleware of the router group of every
/// page and form past the sign-in: a form not sent from the console's own page in this
/// browser is refused first (403, nothing done), then anyone not signed in is sent to
/// sign in. Who may do what is the operations' (``AccessPolicy``), asked as the console
/// runs each one (``OperatorConsole/run(for:_:_:)``).
struct ConsoleGuard: RouterMiddleware {
    typealias Context = ServerContext
    let console: OperatorConsole

    func handle(
        _ request: Request,
        context: ServerContext,
        next: (Request, ServerContext) async throws -> Response
    ) async throws -> Response {
        var form: (fields: [String: String], browser: FormGuard.Browser)?
        if request.method == .post {
            guard case .form(let fields, let browser) = await console.form(request) else {
                return await console.refused(request)
            }
            form = (fields, browser)
        }
        guard let (_, record) = await console.signedIn(request) else {
            return OperatorConsole.redirect(to: ConsolePaths.signIn)
        }
        var context = context
        context.consoleCaller = ConsoleCaller(
            record: record,
            form: form.map { SentForm(fields: $0.fields, browser: $0.browser, record: record) }
        )
        return try await next(request, context)
    }
}

/// How every page and form of the console past the sign-in is put on the router: in the
/// group whose middleware is ``ConsoleGuard``, so no handler repeats the guard.
extension OperatorConsole {
    /// The group of the signed-in console: its routes run behind ``ConsoleGuard``, in a
    /// ``ConsoleContext``.
    func signedInGroup(of router: Router<ServerContext>) -> RouterGroup<ConsoleContext> {
        router.group().add(middleware: ConsoleGuard(console: self)).group(context: ConsoleContext.self)
    }

    /// A page (GET) for a signed-in operator.
    func page(
        _ group: RouterGroup<ConsoleContext>,
        _ path: String,
        _ handler: @escaping @Sendable (Request, ConsoleContext, OperatorRecord) async throws -> Response
    ) {
        group.get(RouterPath(path)) { request, context in try await handler(request, context, context.caller.record) }
    }

    /// A form (POST) a signed-in operator sent from the console's own page.
    func action(
        _ group: RouterGroup<ConsoleContext>,
        _ path: String,
        _ handler: @escaping @Sendable (Request, ConsoleContext, SentForm) async throws -> Response
    ) {
        group.post(RouterPath(path)) { request, context in
            guard let form = context.caller.form else { throw HTTPError(.internalServerError) }
            return try await handler(request, context, form)
        }
    }
}

import GangwayForms
import GangwayServerStorage
import Hummingbird

/// The console's signed-in guard, once, as the middleware of the router group of every
/// page and form past the sign-in: a form not sent from the console's own page in this
/// browser is refused first (403, nothing done), then anyone not signed in is sent to
/// sign in. Who may do what is the operations', asked as the console runs each one
/// (``OperatorConsole/run(for:_:_:)``).
struct ConsoleGuard<Parent: RequestContext>: RouterMiddleware {
    typealias Context = ConsoleContext<Parent>
    let console: OperatorConsole

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
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
        context.caller = ConsoleCaller(
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
    func signedInGroup<Parent: RequestContext>(of router: Router<Parent>) -> RouterGroup<ConsoleContext<Parent>> {
        router.group().group(context: ConsoleContext<Parent>.self).add(middleware: ConsoleGuard<Parent>(console: self))
    }

    /// A page (GET) for a signed-in operator.
    func page<Parent: RequestContext>(
        _ group: RouterGroup<ConsoleContext<Parent>>,
        _ path: String,
        _ handler: @escaping @Sendable (Request, ConsoleContext<Parent>, OperatorRecord) async throws -> Response
    ) {
        group.get(RouterPath(path)) { request, context in
            guard let caller = context.caller else { throw HTTPError(.internalServerError) }
            return try await handler(request, context, caller.record)
        }
    }

    /// A form (POST) a signed-in operator sent from the console's own page.
    func action<Parent: RequestContext>(
        _ group: RouterGroup<ConsoleContext<Parent>>,
        _ path: String,
        _ handler: @escaping @Sendable (Request, ConsoleContext<Parent>, SentForm) async throws -> Response
    ) {
        group.post(RouterPath(path)) { request, context in
            guard let form = context.caller?.form else { throw HTTPError(.internalServerError) }
            return try await handler(request, context, form)
        }
    }
}

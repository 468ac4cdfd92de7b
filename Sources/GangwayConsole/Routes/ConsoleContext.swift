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

/// Who is signed in to the console, and the form they sent: what ``ConsoleGuard`` found.
struct ConsoleCaller: Sendable {
    var record: OperatorRecord
    /// The form of a POST, checked to come from the console's own page in this browser;
    /// `nil` for a page.
    var form: SentForm?
}

/// The request context of every console page and form past the sign-in, made from the
/// server's (`Parent`) as the request enters the console's group: ``ConsoleGuard``, the
/// group's middleware, puts the signed-in operator in it. The console's handlers are
/// given the operator (``OperatorConsole/page(_:_:_:)``), never the optional: a route in
/// the group without the guard fails with 500 before its handler runs, and shows nothing.
struct ConsoleContext<Parent: RequestContext>: ChildRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The server's own cap on a body, as the parent context gives it.
    let maxUploadSize: Int
    /// The signed-in operator: set by ``ConsoleGuard``, `nil` before it.
    var caller: ConsoleCaller?

    init(context: Parent) throws {
        coreContext = context.coreContext
        maxUploadSize = context.maxUploadSize
    }
}

public import Foundation
public import GangwayForms
public import GangwayServerStorage
public import Logging

/// What the console asks of the server that serves it, apart from the API's operations:
/// the storage it reads where the API lists nothing, the clock, the log, the audit, the
/// forms' anti-forgery, and the operators' own sign-in (passwords, the throttle, their
/// second factor's sealed key).
///
/// The server's services conform; the console holds them as this protocol, so what it
/// reaches of the server is said here and nowhere else.
public protocol ConsoleServices: Sendable {
    /// The server's storage.
    var storage: ServerStorage { get }
    var logger: Logger { get }
    /// The server's clock.
    var now: @Sendable () -> Date { get }
    /// Anti-forgery of the console's forms.
    var formGuard: FormGuard { get }
    /// Whether the console's pages are reached over HTTPS: their cookies are then `Secure`.
    var isSecureOrigin: Bool { get }
    /// The most a signed-in operator's form may hold: what the server takes from any
    /// authenticated caller.
    var maximumBodySize: Int { get }

    /// The address of the request being served, as the sign-in throttle and the audit
    /// take it (behind a trusted proxy, the one it forwarded for).
    var clientAddress: String { get }

    /// The ID of the request being served, for the log.
    var requestID: String { get }

    /// The console's page at `path`, at the address operators reach it (an enrolment link).
    func consoleURL(_ path: String) -> String

    /// Appends an event to the audit, at the request's client address and with what the
    /// operation it ran noted; a failure to record it is logged.
    func audit(actor: String, via: AuditEventRecord.Channel, action: String, target: String?) async

    /// Adds `detail` to what the audit records of the request being served.
    func noteInAudit(_ detail: String)

    /// Runs an operation in process for the console, as the API runs it for a caller
    /// (the access check made first by the console): the request's own credentials are
    /// not passed on.
    func runOperation<Result>(_ body: () async throws -> Result) async throws -> Result

    /// Checks an operator's name and password as the API checks a user's: counted by the
    /// sign-in throttle first, a browser the operator signed in with before
    /// (`knownBrowser`, its cookie) apart from strangers guessing the name, in the console's
    /// own place in the password checks' queue. Throws the API's refusal when the attempt
    /// is not let through (too many, or the server busy).
    func checkOperatorPassword(
        name: String,
        password: String,
        knownBrowser: String?
    ) async throws -> OperatorPasswordCheck

    /// A new cookie for a browser the operator `name` signed in with; `nil` when none could
    /// be stored.
    func newKnownBrowser(operator name: String) async -> String?

    /// The second factor's key an enrolment link of SHA-256 `tokenHash` offers: derived
    /// from the link, so the page shows the same key however often it is opened, and
    /// nothing is kept before the operator proves they hold it.
    func enrolmentSecret(tokenHash: Data) -> Data

    /// The bcrypt hash of an operator's new password, off the request's threads.
    func hashPassword(_ password: String) async throws -> String

    /// `secret` sealed under the server key for `purpose` (an operator's second factor).
    func seal(_ secret: Data, for purpose: String) throws -> Data

    /// What `sealed` holds, opened under the server key for `purpose`.
    func open(_ sealed: Data, for purpose: String, plainLength: Int) throws -> Data
}

/// What ``ConsoleServices/checkOperatorPassword(name:password:knownBrowser:)`` found.
public struct OperatorPasswordCheck: Sendable {
    /// The operator of that name, if there is one.
    public var record: OperatorRecord?
    /// Whether the password is theirs.
    public var matches: Bool
    /// Whether the browser holds a cookie of theirs from an earlier sign-in.
    public var isKnownBrowser: Bool
    /// To call once the whole sign-in (the second factor too) succeeded: the throttle then
    /// forgets the failures it counted.
    public var succeeded: @Sendable () async -> Void

    public init(
        record: OperatorRecord?,
        matches: Bool,
        isKnownBrowser: Bool,
        succeeded: @escaping @Sendable () async -> Void
    ) {
        self.record = record
        self.matches = matches
        self.isKnownBrowser = isKnownBrowser
        self.succeeded = succeeded
    }
}

public import GangwayServerStorage
public import Hummingbird

/// The console's sign-in through an app's OpenID Connect provider, run by the server's
/// federated sign-in: the app's client at the provider, PKCE, a nonce, and a state
/// finished once and bound by a cookie to the browser that started it.
///
/// The server conforms; the console says only where the browser comes back to and what it
/// keeps for the return.
public protocol ConsoleProviderSignIn: Sendable {
    /// The answer that sends the browser to the provider of `app` (its authentication's),
    /// as the app's client there, to come back to `redirectURI`; `origin` is kept for the
    /// return, bound to the browser by a cookie sent to `cookiePath` alone.
    func depart(
        for app: AppRecord,
        keeping origin: some Encodable,
        back redirectURI: String,
        cookiePath: String
    ) async throws(ProviderSignInFailure) -> Response

    /// The `Set-Cookie` value that makes the browser forget its binding at `path`.
    func forgetBinding(path: String) -> String

    /// The sign-in kept under `state`, taken once: unexpired, and back in the browser that
    /// started it.
    func take(state: String?, request: Request) async throws(ProviderSignInFailure) -> FederatedSignInRecord

    /// Who the provider of `app` signed in: `code` redeemed as the app's client with the
    /// sign-in's PKCE verifier, and the ID token checked (signature, issuer, audience,
    /// expiry, nonce).
    func identity(
        of record: FederatedSignInRecord,
        code: String,
        app: AppRecord,
        back redirectURI: String
    ) async throws(ProviderSignInFailure) -> (issuer: String, subject: String)
}

/// Why a provider sign-in did not go on. The description is for the server's log, never
/// for the page: it may say what the provider answered.
public enum ProviderSignInFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// There is no such sign-in (never started, already finished) or it expired.
    case stale
    /// It came back to a browser that did not start it.
    case anotherBrowser
    /// The provider or the database could not be reached, and why.
    case unavailable(String)
    /// The provider's answer failed a check, or the provider refused, and why.
    case refused(String)

    public var description: String {
        switch self {
        case .stale: "there is no such sign-in, or it expired"
        case .anotherBrowser: "the sign-in came back to another browser"
        case .unavailable(let reason), .refused(let reason): reason
        }
    }
}

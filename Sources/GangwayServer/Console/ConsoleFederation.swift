import GangwayConsole
import GangwayServerStorage
import Hummingbird

/// The console's sign-in through a provider (``ConsoleProviderSignIn``): the apps'
/// federated sign-in, with the console's callback and origin.
struct ConsoleFederation: ConsoleProviderSignIn {
    let federation: FederatedSignIn

    func depart(
        for app: AppRecord,
        keeping origin: some Encodable,
        back redirectURI: String,
        cookiePath: String
    ) async throws(ProviderSignInFailure) -> Response {
        do {
            return try await federation.depart(
                origin,
                app: app,
                provider: try provider(of: app),
                redirectURI: redirectURI,
                cookiePath: cookiePath
            )
        } catch {
            throw ProviderSignInFailure(error)
        }
    }

    func forgetBinding(path: String) -> String {
        federation.cookie("", path: path, maxAge: 0)
    }

    func take(state: String?, request: Request) async throws(ProviderSignInFailure) -> FederatedSignInRecord {
        do {
            return try await federation.take(state, request: request, appID: nil).0
        } catch {
            switch error {
            case .stale: throw .stale
            case .unavailable: throw .unavailable("the sign-in could not be read")
            case .anotherBrowser: throw .anotherBrowser
            }
        }
    }

    func identity(
        of record: FederatedSignInRecord,
        code: String,
        app: AppRecord,
        back redirectURI: String
    ) async throws(ProviderSignInFailure) -> (issuer: String, subject: String) {
        do {
            let provider = try provider(of: app)
            let (identity, _) = try await federation.identity(
                code: code,
                of: record,
                app: app,
                provider: provider,
                redirectURI: redirectURI
            )
            return (identity.issuer, identity.subject)
        } catch {
            throw ProviderSignInFailure(error)
        }
    }

    private func provider(of app: AppRecord) throws(FederationError) -> IdentityProvider {
        guard let provider = app.authentication.provider else {
            throw .misconfigured("the app signs in with no provider")
        }
        return provider
    }
}

extension ProviderSignInFailure {
    init(_ error: FederationError) {
        self = error.code == .unavailable ? .unavailable(error.description) : .refused(error.description)
    }
}

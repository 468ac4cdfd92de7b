import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayScreens
import Logging

/// Sign-in through the authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636,
/// RFC 8252), for an `oauth2` app on a device with a browser (``MobileServices/browser``):
/// the server's sign-in page opens in the browser, and the answer is checked before the
/// code is redeemed.
///
/// - A new verifier, `state` and `nonce` for each try, from the system's random source.
/// - The answer must carry this try's `state` (else it was not this sign-in's: CSRF,
///   RFC 6749 §10.12) and the app's issuer as `iss` (RFC 9207: a mix-up between servers).
/// - A denial or a refused answer shows an error screen with "try again".
struct AuthorizationCodePrompt {
    let services: MobileServices
    let browser: any AuthorizationBrowser

    func signIn(_ request: SignInRequest) async throws -> ServerSession {
        let (context, client, appID) = (request.context, request.client, request.appID)
        let prompt = SignInPrompt(services: services)
        while true {
            let server: (issuer: String, authorizationEndpoint: URL)
            do throws(ServiceError) {
                server = try await client.authorizationServer(appID: appID)
            } catch {
                try await prompt.offerRetry(error, context: context)
                continue
            }
            let verifier = Self.random(32)
            let state = Self.random(16)
            let challenge = PKCE.challenge(for: verifier)
            let query: [URLQueryItem] = [
                .init(name: "response_type", value: "code"), .init(name: "client_id", value: appID),
                .init(name: "code_challenge", value: challenge),
                .init(name: "code_challenge_method", value: PKCE.method),
                .init(name: "state", value: state), .init(name: "nonce", value: Self.random(16)),
                .init(name: "device_id", value: services.device.deviceID),
            ]
            let endpoint = server.authorizationEndpoint
            services.logger.info("authorization code sign-in started")
            let callback = try await browser.authorize { redirectURI in
                var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
                components.queryItems = query + [.init(name: "redirect_uri", value: redirectURI)]
                return components.url!
            }
            guard callback.parameter("state") == state, callback.parameter("iss") == server.issuer else {
                services.logger.warning("an authorization answer that is not this sign-in's was refused")
                try await prompt.offerRetry(.forgedAnswer, context: context)
                continue
            }
            guard let code = callback.parameter("code") else {
                let refusal: ServiceError = callback.parameter("error") == "access_denied" ? .accessDenied : .refused
                try await prompt.offerRetry(refusal, context: context)
                continue
            }
            let tokens: OAuthTokens
            let user: ServerUser
            do throws(ServiceError) {
                tokens = try await client.redeemAuthorizationCode(
                    appID: appID,
                    code: code,
                    redirectURI: callback.redirectURI,
                    verifier: verifier
                )
                user = try await client.userInfo(appID: appID, token: tokens.accessToken)
            } catch {
                try await prompt.offerRetry(error, context: context)
                continue
            }
            if let refusal = request.refusal(of: user) {
                services.logger.notice("another user signed in than expected; the tokens are revoked")
                try? await client.revoke(appID: appID, refreshToken: tokens.refreshToken)
                _ = try? await context.presenter.present(ErrorScreen(message: refusal, allowsRetry: true))
                continue
            }
            services.logger.info("signed in with the authorization code grant")
            return ServerSession(tokens, user: user)
        }
    }

    /// `count` random bytes as base64url: a PKCE verifier of 32 (43 characters), a
    /// `state` or `nonce` of 16.
    static func random(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64URLEncoded
    }
}

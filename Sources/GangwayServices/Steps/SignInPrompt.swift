import Foundation
import GangwayFlows
import GangwayScreens
import Logging

/// The sign-in screen against the server, until a session opens: a wrong password shows
/// the server's message and asks again, throttling shows when to try again, an
/// unreachable server shows an error screen with "try again".
struct SignInPrompt {
    let services: MobileServices

    func signIn(_ request: SignInRequest) async throws -> ServerSession {
        var request = request
        let (context, client) = (request.context, request.client)
        var retryAfter: Duration?
        var username = ""
        while true {
            let screen = SignInScreen(username: username, message: request.message, retryAfter: retryAfter)
            guard case .credentials(let name, let password) = try await context.presenter.present(screen) else {
                throw ServiceFlowError.cancelled
            }
            username = name
            retryAfter = nil
            let session: ServerSession
            do {
                session = try await client.signIn(
                    appID: request.appID,
                    username: name,
                    password: password,
                    deviceID: services.device.deviceID,
                    deviceCookie: try? context.credentials.deviceCookie()
                )
            } catch {
                switch error {
                case .invalidCredentials:
                    request.message = error.summary  // the server's message
                    continue
                case .registrationLocked:
                    // Held until an administrator unlocks it: said on the sign-in screen, which
                    // the person may try again once they have, or leave.
                    request.message = "\(error.summary) \(error.advice)"
                    continue
                case .throttled, .busy:
                    // The screen's notice says when to try again; the server's message
                    // says the same, so it shows only when no time was given.
                    retryAfter = error.retryAfter
                    request.message = retryAfter == nil ? error.summary : nil
                    continue
                case _ where error.isTransient || error == .invalidResponse:
                    try await offerRetry(error, context: context)
                    request.message = nil
                    continue
                default:
                    _ = try? await context.presenter.present(
                        ErrorScreen(message: error.summary, advice: error.advice, allowsRetry: false)
                    )
                    throw error
                }
            }
            if let refusal = request.refusal(of: session.user) {
                services.logger.notice("another server user signed in than expected; the session is revoked")
                try? await client.signOut(appID: request.appID, token: session.token)
                request.message = refusal
                continue
            }
            services.logger.info("signed in")
            return session
        }
    }

    /// Shows what went wrong; returns on "try again", throws ``ServiceFlowError/cancelled``.
    func offerRetry(_ error: ServiceError, context: FlowContext) async throws {
        let screen = ErrorScreen(message: error.summary, advice: error.advice, allowsRetry: true)
        guard try await context.presenter.present(screen) == .retry else { throw ServiceFlowError.cancelled }
    }
}

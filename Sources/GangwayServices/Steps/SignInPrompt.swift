import Foundation
import GangwayFlows
import GangwayScreens
import Logging

/// The sign-in screen against the server, until a session opens: a wrong password shows
/// the server's message and asks again, throttling shows when to try again, an
/// unreachable server shows an error screen with "try again".
struct SignInPrompt {
    let services: MobileServices

    /// - Parameters:
    ///   - message: A first message, such as why the user must sign in again.
    ///   - expectedUser: When set, only this server user may sign in (a passcode reset
    ///     or a locked device); another user's session is revoked and refused.
    func signIn(
        _ context: FlowContext,
        message first: String? = nil,
        expectedUser: ServerUser? = nil
    ) async throws -> ServerSession {
        let (client, configuration) = try services.client(context)
        var message = first
        var retryAfter: Duration?
        var username = ""
        while true {
            let screen = SignInScreen(username: username, message: message, retryAfter: retryAfter)
            guard case .credentials(let name, let password) = try await context.presenter.present(screen) else {
                throw ServiceFlowError.cancelled
            }
            username = name
            retryAfter = nil
            let session: ServerSession
            do {
                session = try await client.signIn(
                    appID: configuration.appID,
                    username: name,
                    password: password,
                    deviceID: services.device.deviceID,
                    deviceCookie: try? context.credentials.deviceCookie()
                )
            } catch {
                switch error {
                case .invalidCredentials:
                    message = error.summary  // the server's message
                    continue
                case .throttled, .busy:
                    message = error.summary
                    retryAfter = error.retryAfter
                    continue
                case _ where error.isTransient || error == .invalidResponse:
                    try await offerRetry(error, context: context)
                    message = nil
                    continue
                default:
                    _ = try? await context.presenter.present(
                        ErrorScreen(message: error.summary, advice: error.advice, allowsRetry: false)
                    )
                    throw error
                }
            }
            if let expectedUser, session.user.id != expectedUser.id {
                services.logger.notice("another server user signed in than expected; the session is revoked")
                try? await client.signOut(appID: configuration.appID, token: session.token)
                message = StringTable.text("service.signInAs").replacingOccurrences(
                    of: "%@",
                    with: expectedUser.displayName
                )
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

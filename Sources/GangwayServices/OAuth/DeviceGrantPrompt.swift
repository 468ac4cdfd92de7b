import Foundation
import GangwayFlows
import GangwayScreens
import Logging

/// Sign-in through the device authorization grant (RFC 8628), for an `oauth2` app: the
/// device-code screen shows the verification address and the code while the device polls
/// the token endpoint, until the person approved on another device, denied, or the code
/// expired; then it asks the server who signed in.
///
/// - The poll waits the server's interval between tries, 5 seconds more after each
///   `slow_down`; a network failure is tried again at the next interval until the code
///   expires, since the person may still be approving.
/// - A denied or expired code shows an error screen with "try again", which starts anew.
/// - When `expectedUser` is set (signing in again, a passcode reset), another person's
///   tokens are revoked and the sign-in starts again, naming who must sign in.
struct DeviceGrantPrompt {
    let services: MobileServices

    func signIn(_ request: SignInRequest) async throws -> ServerSession {
        var request = request
        let (context, client, appID) = (request.context, request.client, request.appID)
        let prompt = SignInPrompt(services: services)
        while true {
            let authorization: DeviceAuthorization
            do throws(ServiceError) {
                authorization = try await client.startDeviceAuthorization(
                    appID: appID,
                    deviceID: services.device.deviceID
                )
            } catch {
                guard error.isTransient || error == .invalidResponse else {
                    _ = try? await context.presenter.present(
                        ErrorScreen(message: error.summary, advice: error.advice, allowsRetry: false)
                    )
                    throw error
                }
                try await prompt.offerRetry(error, context: context)
                continue
            }
            services.logger.info("device authorization started")
            let screen = DeviceCodeScreen(
                userCode: authorization.userCode,
                verificationURL: authorization.verificationURL,
                verificationURLComplete: authorization.verificationURLComplete,
                expiresAt: authorization.expiresAt,
                message: request.message
            )
            let tokens: OAuthTokens
            switch try await waitForApproval(screen, authorization, request) {
            case .cancelled:
                throw ServiceFlowError.cancelled
            case .failed(let error):
                services.logger.notice("device authorization ended", metadata: ["reason": "\(error)"])
                try await prompt.offerRetry(error, context: context)
                continue
            case .approved(let approved):
                tokens = approved
            }
            let user: ServerUser
            do throws(ServiceError) {
                user = try await client.userInfo(appID: appID, token: tokens.accessToken)
            } catch {
                await revoke(tokens, request)
                try await prompt.offerRetry(error, context: context)
                continue
            }
            if let refusal = request.refusal(of: user) {
                services.logger.notice("another user approved than expected; the tokens are revoked")
                await revoke(tokens, request)
                request.message = refusal
                continue
            }
            services.logger.info("signed in with the device grant")
            return ServerSession(tokens, user: user)
        }
    }

    private enum Wait {
        case approved(OAuthTokens)
        case failed(ServiceError)
        case cancelled
    }

    /// Shows `screen` while polling; whichever ends first ends the other.
    private func waitForApproval(
        _ screen: DeviceCodeScreen,
        _ authorization: DeviceAuthorization,
        _ request: SignInRequest
    ) async throws -> Wait {
        try await withThrowingTaskGroup(of: Wait.self) { group in
            group.addTask {
                switch try await request.context.presenter.present(screen) {
                case .cancelled: .cancelled
                }
            }
            group.addTask { try await poll(authorization, request) }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { return .cancelled }
            return first
        }
    }

    private func poll(_ authorization: DeviceAuthorization, _ request: SignInRequest) async throws -> Wait {
        var interval = authorization.interval
        while true {
            try await services.sleep(interval)
            let failure: ServiceError
            do throws(ServiceError) {
                return .approved(
                    try await request.client.redeemDeviceCode(
                        appID: request.appID,
                        deviceCode: authorization.deviceCode
                    )
                )
            } catch {
                failure = error
            }
            if failure == .authorizationPending { continue }
            if failure == .slowDown {
                interval += .seconds(5)
            } else if failure.isTransient {
                // The person may be approving while this device is offline for a moment.
                guard services.now() < authorization.expiresAt else { return .failed(.expiredToken) }
            } else {
                return .failed(failure)
            }
        }
    }

    /// Best effort: the refresh token's family, and the session it opened, end.
    private func revoke(_ tokens: OAuthTokens, _ request: SignInRequest) async {
        try? await request.client.revoke(appID: request.appID, refreshToken: tokens.refreshToken)
    }
}

import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayScreens
import Logging

/// Authentication, the one step every onboarding has, in the way the app's configuration
/// names (``AppConfiguration/authType``):
/// - `basic`: the sign-in screen against the server (see
///   ``MobileServicesClient/signIn(appID:username:password:deviceID:deviceCookie:)``);
/// - `oauth2`: with a browser (``MobileServices/browser``), the authorization code grant
///   with PKCE; without one, the device authorization grant, with the device-code screen,
///   where the person signs in and approves on another device. The device keeps a
///   refresh token.
///
/// It puts who signed in and the session into the context, and keeps the tokens in the
/// credential store, which the store step moves into the user's secure store.
///
/// A passcode reset must be signed by the same server user (the user check step then
/// compares); on restore nothing runs here: the settings download signs in again only
/// when the server asks for it.
public struct AuthenticationStep: Step {
    public let services: MobileServices

    public init(services: MobileServices) {
        self.services = services
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        try await signIn(context, message: nil)
    }

    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        try await signIn(context, message: StringTable.text("service.signInToReset"))
    }

    /// Revokes the session (and refresh token) an abandoned onboarding left. Best effort.
    public func reset(_ context: FlowContext) async {
        guard let session = context.info[.serverSession], let configuration = context.info[.appConfiguration] else {
            return
        }
        let client = services.client(for: configuration)
        if let refresh = session.refreshToken {
            try? await client.revoke(appID: configuration.appID, refreshToken: refresh)
        }
        try? await client.signOut(appID: configuration.appID, token: session.token)
    }

    private func signIn(_ context: FlowContext, message: String?) async throws -> FlowContext {
        let session = try await services.signIn(context, message: message)
        var context = context
        context.info[.serverSession] = session
        context.info[.serverUser] = session.user
        try context.credentials.keep(session)
        return context
    }
}

/// The step's name before it also signed in with OAuth 2.0.
@available(*, deprecated, renamed: "AuthenticationStep")
public typealias BasicAuthStep = AuthenticationStep

extension MobileServices {
    /// Signs a person in as the app's configuration says: the sign-in screen for `basic`,
    /// the device grant for `oauth2`.
    ///
    /// - Parameters:
    ///   - message: A first message, such as why the person must sign in again.
    ///   - expectedUser: When set, only this server user may sign in; another's session
    ///     is revoked and the sign-in asked again.
    func signIn(
        _ context: FlowContext,
        message: String? = nil,
        expectedUser: ServerUser? = nil
    ) async throws -> ServerSession {
        let (client, configuration) = try client(context)
        let request = SignInRequest(
            context: context,
            client: client,
            appID: configuration.appID,
            message: message,
            expectedUser: expectedUser
        )
        switch configuration.authType {
        case .basic:
            return try await SignInPrompt(services: self).signIn(request)
        case .oauth2:
            if let browser {
                return try await AuthorizationCodePrompt(services: self, browser: browser).signIn(request)
            }
            return try await DeviceGrantPrompt(services: self).signIn(request)
        }
    }
}

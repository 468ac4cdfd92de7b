import Foundation
import GangwayFlows
import GangwayScreens
import Logging

/// Basic authentication: the sign-in screen against the server (see
/// ``MobileServicesClient/signIn(appID:username:password:deviceID:)``). It puts who
/// signed in and the session into the context, and keeps the token in the credential
/// store, which the store step moves into the user's secure store.
///
/// A passcode reset must be signed by the same server user (the user check step then
/// compares); on restore nothing runs here: the settings download signs in again only
/// when the server asks for it.
public struct BasicAuthStep: Step {
    public let services: MobileServices

    public init(services: MobileServices) {
        self.services = services
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        try await signIn(context, message: nil)
    }

    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        try await signIn(context, message: "Sign in to set a new passcode.")
    }

    /// Revokes a session an abandoned onboarding left. Best effort.
    public func reset(_ context: FlowContext) async {
        guard let session = context.info[.serverSession], let configuration = context.info[.appConfiguration] else {
            return
        }
        try? await services.client(for: configuration).signOut(appID: configuration.appID, token: session.token)
    }

    private func signIn(_ context: FlowContext, message: String?) async throws -> FlowContext {
        let session = try await SignInPrompt(services: services).signIn(context, message: message)
        var context = context
        context.info[.serverSession] = session
        context.info[.serverUser] = session.user
        try context.credentials.keep(session)
        return context
    }
}

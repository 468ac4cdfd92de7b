import Foundation

/// Checks who signed in, right after the authentication steps: during onboarding, that a
/// shared device does not have them already; during a passcode reset, that they are the
/// user whose passcode is being reset.
public struct UserCheckStep: Step {
    /// The manager whose registry is asked.
    public let users: any OnboardingIDManager

    public init(users: any OnboardingIDManager) {
        self.users = users
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        guard let user = context.info[.serverUser] else {
            if users.isMultiUser { throw UserError.serverUserMissing }
            return context
        }
        try users.checkNewUser(user)
        return context
    }

    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        guard let user = context.info[.serverUser] else { throw UserError.serverUserMissing }
        try users.checkReturningUser(user, for: context.onboardingID)
        return context
    }
}

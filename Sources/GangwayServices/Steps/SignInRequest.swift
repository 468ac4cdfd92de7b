import Foundation
import GangwayFlows
import GangwayScreens

/// What a sign-in asks, the same whichever way the person signs in (the sign-in screen,
/// the device grant or the authorization code grant).
struct SignInRequest {
    let context: FlowContext
    /// The client of the server the app signs in to.
    let client: MobileServicesClient
    let appID: String
    /// What the screen shows first, such as why the person must sign in again; after a
    /// refused try, why it was refused.
    var message: String?
    /// When set, only this server user may sign in (a passcode reset or a locked device);
    /// another's tokens are revoked and the sign-in asked again.
    let expectedUser: ServerUser?

    /// Why `user` may not sign in, naming who must; `nil` when they may.
    func refusal(of user: ServerUser) -> String? {
        guard let expectedUser, user.id != expectedUser.id else { return nil }
        return StringTable.text("service.signInAs").replacingOccurrences(of: "%@", with: expectedUser.displayName)
    }
}

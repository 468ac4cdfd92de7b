import Foundation

/// What a flow is for.
public enum FlowType: Sendable, Hashable, CustomStringConvertible {
    /// First launch for a new user.
    case onboard
    /// A later launch of an onboarded user.
    case restore(UUID)
    /// The user forgot the passcode.
    case resetPasscode(UUID)
    /// Remove what onboarding set up for the user.
    case reset(UUID)
    /// The app went to the background.
    case background(UUID)
    /// The app came back and the person unlocked it: what the background flow learnt
    /// from the server and needs the person (a new licence agreement) is asked now,
    /// before the app's screens show.
    case unlock(UUID)

    /// The user the flow is for, when onboarded already.
    public var onboardingID: UUID? {
        switch self {
        case .onboard: nil
        case .restore(let id), .resetPasscode(let id), .reset(let id), .background(let id), .unlock(let id): id
        }
    }

    public var description: String {
        switch self {
        case .onboard: "onboard"
        case .restore: "restore"
        case .resetPasscode: "resetPasscode"
        case .reset: "reset"
        case .background: "background"
        case .unlock: "unlock"
        }
    }
}

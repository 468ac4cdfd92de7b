/// An error after which the user's data must not stay on the device: a server wiped the
/// device's registration, or the device stayed out of contact past the app's limit.
///
/// When a restore fails with one, the ``SessionManager`` erases the user (the reset
/// flow destroys the store), forgets them and starts onboarding, as after the passcode
/// retry limit. The flow stops on it without asking the delegate.
public protocol UserDataWipeError: FlowEndingError {
    /// Whether the user's data must go.
    var wipesUserData: Bool { get }
    /// Why the data went, for the person (observers hear it in
    /// ``UserEvent/userWiped(_:reason:)``); empty when there is nothing better to say
    /// than that it went.
    var wipeReason: String { get }
}

extension UserDataWipeError {
    public var wipeReason: String { "" }
}

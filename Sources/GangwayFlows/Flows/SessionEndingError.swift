/// An error after which the open session must not go on, though the user's data stays:
/// the server no longer accepts the session (it expired, an administrator locked the
/// device or blocked the user), or the device stayed out of contact past the app's lock
/// period.
///
/// When the background flow ends with one, the ``SessionManager`` closes the session and
/// tells observers (``UserEvent/sessionEnded(_:reason:)``); the next
/// ``SessionManager/open()`` restores the user, whose restore flow then deals with the
/// cause (a sign-in, or the reason it is refused).
public protocol SessionEndingError: Error {
    /// Whether the session must end.
    var endsSession: Bool { get }
    /// Why, in a sentence for people; never a secret.
    var sessionEndReason: String { get }
}

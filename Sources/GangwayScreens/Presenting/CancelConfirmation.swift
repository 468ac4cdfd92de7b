/// The question a screen asks before it is cancelled, so a stray tap or an empty answer
/// does not throw away what the person was doing. Its texts are the app's to change.
public struct CancelConfirmation: Sendable, Hashable {
    public var title: String
    public var message: String
    /// The answer that cancels.
    public var confirm: String
    /// The answer that goes back to the screen.
    public var resume: String

    public init(
        title: String = StringTable.text("cancel.title"),
        message: String,
        confirm: String = StringTable.text("cancel.confirm"),
        resume: String = StringTable.text("cancel.resume")
    ) {
        self.title = title
        self.message = message
        self.confirm = confirm
        self.resume = resume
    }
}

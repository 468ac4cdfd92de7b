/// The page that asks before an action that cannot be undone (a wipe, a removal, a
/// block, sessions ended): what will happen, in words, and the same form sent again with
/// `confirmed=yes` behind a button marked as dangerous, or a way back that does nothing.
/// It needs no script.
public struct ConfirmPage: ConsolePage {
    /// A field the confirming form sends again as it came.
    public struct Field: Sendable {
        public var name: String
        public var value: String
    }

    public var template: String { "confirm" }
    public var title: String
    /// What happens, and what it cannot undo.
    public var consequence: String
    /// Where the confirming form goes: the action's own path.
    public var action: String
    public var fields: [Field]
    /// The button that does it: says what it does ("Wipe the device").
    public var button: String
    /// Where "Cancel" leads: the page the action was started from.
    public var back: String
    public var formToken: String
    public var signedIn: SignedInOperator?

    /// The field that says the person confirmed.
    public static let confirmedField = "confirmed"

    /// - Parameter fields: The fields of the form that asked, sent again with the
    ///   confirmation; the anti-forgery token and an earlier confirmation are left out.
    public init(
        title: String,
        consequence: String,
        action: String,
        fields: [(String, String)],
        button: String,
        back: String,
        formToken: String,
        signedIn: SignedInOperator?
    ) {
        self.title = title
        self.consequence = consequence
        self.action = action
        self.fields = fields.filter { $0.0 != "form_token" && $0.0 != Self.confirmedField }
            .map { Field(name: $0.0, value: $0.1) }
        self.button = button
        self.back = back
        self.formToken = formToken
        self.signedIn = signedIn
    }

    /// Whether the form `fields` was sent from this page.
    public static func isConfirmed(_ fields: [String: String]) -> Bool {
        fields[confirmedField] == "yes"
    }
}

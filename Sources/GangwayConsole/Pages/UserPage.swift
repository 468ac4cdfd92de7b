/// One user: who they are, their status, the provider identities linked to them; an
/// operator or admin blocks or unblocks them, ends their sessions, sets a new password,
/// and links or unlinks an identity.
public struct UserPage: ConsolePage {
    public struct Identity: Sendable {
        public var issuer: String
        public var subject: String
        public var linked: String

        public init(issuer: String, subject: String, linked: String) {
            self.issuer = issuer
            self.subject = subject
            self.linked = linked
        }
    }

    public var template: String { "user" }
    public var title: String
    public var signedIn: SignedInOperator?
    /// Who they are, with the same status and first action as their row in the list.
    public var user: UsersPage.Row
    public var identities: [Identity]
    public var hasIdentities: Bool
    public var canAct: Bool
    public var formToken: String
    public var action: String
    public var error: String?
    public var notice: String?
    /// What was typed in the link form, kept after a refusal.
    public var issuer: String
    public var subject: String

    public init(
        signedIn: SignedInOperator,
        username: String,
        displayName: String,
        blocked: Bool,
        added: String,
        identities: [Identity],
        canAct: Bool,
        action: String,
        error: String? = nil,
        notice: String? = nil,
        issuer: String = "",
        subject: String = ""
    ) {
        title = "User \(username)"
        self.signedIn = signedIn
        user = UsersPage.Row(username: username, displayName: displayName, blocked: blocked, added: added)
        self.identities = identities
        hasIdentities = !identities.isEmpty
        self.canAct = canAct
        formToken = signedIn.formToken
        self.action = action
        self.error = error
        self.notice = notice
        self.issuer = issuer
        self.subject = subject
    }
}

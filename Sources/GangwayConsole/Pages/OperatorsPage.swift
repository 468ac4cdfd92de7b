/// The console's operators: who may sign in, with what role, and whether they set up
/// their password and second factor; an admin adds them (and gets the one-use link to
/// hand to that person alone), changes their role, gives a new link, or removes them.
public struct OperatorsPage: ConsolePage {
    public struct Row: Sendable {
        public var name: String
        public var role: String
        public var roles: [ConsoleOption]
        public var status: String
        public var created: String
        /// Whether this row is the signed-in operator, who changes nothing of their own here.
        public var isSelf: Bool

        public init(name: String, role: String, roles: [String], isEnrolled: Bool, created: String, isSelf: Bool) {
            self.name = name
            self.role = role
            self.roles = roles.map { ConsoleOption(value: $0, title: $0, selected: $0 == role) }
            status = isEnrolled ? "set up" : "not set up yet"
            self.created = created
            self.isSelf = isSelf
        }
    }

    /// A provider identity an operator signs in with.
    public struct Identity: Sendable {
        public var operatorName: String
        public var issuer: String
        public var subject: String
        public var created: String
        /// Whether it is the signed-in operator's own, which they do not unlink here.
        public var isSelf: Bool

        public init(operatorName: String, issuer: String, subject: String, created: String, isSelf: Bool) {
            self.operatorName = operatorName
            self.issuer = issuer
            self.subject = subject
            self.created = created
            self.isSelf = isSelf
        }
    }

    public var template: String { "operators" }
    public let title = "Operators"
    public var signedIn: SignedInOperator?
    public var operators: [Row]
    public var roles: [ConsoleOption]
    public var canAct: Bool
    public var formToken: String
    public var error: String?
    /// What the last action did, said at the top: in the server's words, never the query's.
    public var notice: String?
    /// A new enrolment link, and whose it is.
    public var link: String?
    public var linkFor: String?
    public var linkExpires: String?
    /// The name typed in the form to add an operator, kept after a refusal.
    public var newName: String
    public var identities: [Identity]
    public var hasIdentities: Bool
    /// The operators an admin may link an identity to: everyone but themselves.
    public var linkable: [ConsoleOption]
    public var canLink: Bool
    /// What was typed in the form to link an identity, kept after a refusal.
    public var linkIssuer: String
    public var linkSubject: String

    public init(
        signedIn: SignedInOperator,
        operators: [Row],
        roles: [String],
        canAct: Bool,
        error: String? = nil,
        link: (url: String, name: String, expires: String)? = nil,
        newName: String = "",
        identities: [Identity] = [],
        typedLink: (issuer: String, subject: String) = ("", "")
    ) {
        self.signedIn = signedIn
        self.operators = operators
        self.roles = roles.map { ConsoleOption(value: $0, title: $0, selected: $0 == "viewer") }
        self.canAct = canAct
        formToken = signedIn.formToken
        self.error = error
        self.link = link?.url
        linkFor = link?.name
        linkExpires = link?.expires
        self.newName = newName
        self.identities = identities
        hasIdentities = !identities.isEmpty
        linkable = operators.filter { !$0.isSelf }.map {
            ConsoleOption(value: $0.name, title: $0.name, selected: false)
        }
        canLink = canAct && !linkable.isEmpty
        linkIssuer = typedLink.issuer
        linkSubject = typedLink.subject
    }
}

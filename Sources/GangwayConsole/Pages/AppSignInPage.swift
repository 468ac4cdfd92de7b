/// How an app's people sign in: basic (a name and password this server keeps) or OAuth
/// 2.0, with or without the company's OpenID provider, and the app's redirect URIs. An
/// admin saves it; the client secret is never shown, and left blank keeps the one stored.
public struct AppSignInPage: ConsolePage {
    public var template: String { "app-sign-in" }
    public var title: String
    public var signedIn: SignedInOperator?
    public var appID: String
    public var action: String
    public var types: [ConsoleOption]
    public var issuer: String
    public var clientID: String
    public var createsUsers: Bool
    /// Whether a client secret is stored for the provider shown.
    public var hasClientSecret: Bool
    /// The redirect URIs, one a line.
    public var redirectURIs: String
    /// Where the provider sends people back to this server: to register at the provider.
    public var providerRedirect: String?
    /// Where the provider sends operators back to the console: to register too, for them
    /// to sign in to the console through it.
    public var consoleRedirect: String?
    public var canEdit: Bool
    public var formToken: String
    public var error: String?
    /// What changes for the app's people, after a change was saved.
    public var consequences: [String]
    public var saved: Bool

    /// What the form shows.
    public struct Values: Sendable {
        public var type: String
        public var issuer: String
        public var clientID: String
        public var createsUsers: Bool
        public var redirectURIs: [String]

        public init(type: String, issuer: String, clientID: String, createsUsers: Bool, redirectURIs: [String]) {
            self.type = type
            self.issuer = issuer
            self.clientID = clientID
            self.createsUsers = createsUsers
            self.redirectURIs = redirectURIs
        }
    }

    public init(
        signedIn: SignedInOperator,
        appID: String,
        name: String,
        action: String,
        values: Values,
        hasClientSecret: Bool,
        providerRedirect: String?,
        consoleRedirect: String? = nil,
        canEdit: Bool,
        error: String? = nil,
        consequences: [String]? = nil
    ) {
        title = "Sign-in of \(name) (\(appID))"
        self.signedIn = signedIn
        self.appID = appID
        self.action = action
        types = [
            ConsoleOption(
                value: "basic",
                title: "Basic: a user name and password this server keeps",
                selected: values.type == "basic"
            ),
            ConsoleOption(
                value: "oauth2",
                title: "OAuth 2.0: this server's sign-in page, or the company's provider below",
                selected: values.type == "oauth2"
            ),
        ]
        issuer = values.issuer
        clientID = values.clientID
        createsUsers = values.createsUsers
        self.hasClientSecret = hasClientSecret
        redirectURIs = values.redirectURIs.joined(separator: "\n")
        self.providerRedirect = providerRedirect
        self.consoleRedirect = providerRedirect == nil ? nil : consoleRedirect
        self.canEdit = canEdit
        formToken = signedIn.formToken
        self.error = error
        self.consequences = consequences ?? []
        saved = consequences != nil
    }
}

/// An app's destinations: the company backends its devices reach through the server as
/// the signed-in person, with what each carries and the requests forwarded to it in the
/// last 7 days by status (never their bodies). An admin adds, changes and removes them; a
/// credential is never shown, and left blank keeps the one stored.
public struct AppDestinationsPage: ConsolePage {
    public struct Destination: Sendable {
        public var name: String
        public var url: String
        /// What it carries: the person, or a fixed credential in a named header.
        public var carries: String
        /// Its forwarded requests of the last 7 days, by status.
        public var requests: String

        public init(name: String, url: String, credentialHeader: String?, requests: [(status: Int, count: Int)]) {
            self.name = name
            self.url = url
            carries = credentialHeader.map { "a fixed credential in \($0)" } ?? "the signed-in person"
            self.requests =
                requests.isEmpty
                ? "none"
                : requests.map { "\($0.status == 0 ? "unreachable" : String($0.status)): \($0.count)" }
                    .joined(separator: ", ")
        }
    }

    /// What the add form holds, as typed (never the credential).
    public struct Typed: Sendable {
        public var name: String
        public var url: String
        public var usesCredential: Bool
        public var credentialHeader: String

        public init(name: String = "", url: String = "", usesCredential: Bool = false, credentialHeader: String = "") {
            self.name = name
            self.url = url
            self.usesCredential = usesCredential
            self.credentialHeader = credentialHeader
        }
    }

    public var template: String { "app-destinations" }
    public var title: String
    public var signedIn: SignedInOperator?
    public var appID: String
    public var action: String
    public var destinations: [Destination]
    public var hasDestinations: Bool
    public var name: String
    public var url: String
    public var usesCredential: Bool
    public var credentialHeader: String
    /// Where a backend reads the server's keys, to check the person it is sent.
    public var keysPath: String
    public var canEdit: Bool
    public var formToken: String
    public var error: String?
    /// What the last action did, said at the top: in the server's words, never the query's.
    public var notice: String?

    public init(
        signedIn: SignedInOperator,
        appID: String,
        name: String,
        action: String,
        destinations: [Destination],
        typed: Typed = Typed(),
        canEdit: Bool,
        error: String? = nil
    ) {
        title = "Destinations of \(name) (\(appID))"
        self.signedIn = signedIn
        self.appID = appID
        self.action = action
        self.destinations = destinations
        hasDestinations = !destinations.isEmpty
        self.name = typed.name
        url = typed.url
        usesCredential = typed.usesCredential
        credentialHeader = typed.credentialHeader
        keysPath = "/apps/\(appID)/destination-keys"
        self.canEdit = canEdit
        formToken = signedIn.formToken
        self.error = error
    }
}

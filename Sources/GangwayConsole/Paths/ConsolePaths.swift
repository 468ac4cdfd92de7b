/// Where the operator's console lives, written once: its pages under `/console`, which
/// take form bodies and answer in HTML.
enum ConsolePaths {
    /// The overview, the first page after signing in.
    static let root = "/console"
    static let styleSheet = "/console/console.css"
    static let signIn = "/console/sign-in"
    /// Where a sign-in through an OpenID Connect provider starts, and where the provider
    /// sends the browser back to.
    static let providerSignIn = "/console/sign-in/provider"
    static let providerCallback = "/console/sign-in/callback"
    static let enrol = "/console/enrol"
    static let signOut = "/console/sign-out"
    static let users = "/console/users"
    static let devices = "/console/devices"
    static let apps = "/console/apps"
    static let operators = "/console/operators"
    static let data = "/console/data"
    static let logs = "/console/logs"
    static let audit = "/console/audit"
    static let auditCSV = "/console/audit.csv"
    static let auditJSON = "/console/audit.json"

    /// The pages, with their methods (for 405 against 404).
    static let routes: [String: [String]] = [
        root: ["get"], styleSheet: ["get"], signIn: ["get", "post"], enrol: ["get", "post"], signOut: ["post"],
        providerSignIn: ["get"], providerCallback: ["get"],
        users: ["get", "post"], users + "/{username}": ["get", "post"], devices: ["get"],
        devices + "/{registrationID}": ["post"],
        audit: ["get"], auditCSV: ["get"], auditJSON: ["get"], apps: ["get", "post"],
        apps + "/{appID}": ["get", "post"],
        apps + "/{appID}/activation": ["get", "post"], apps + "/{appID}/sign-in": ["get", "post"],
        apps + "/{appID}/destinations": ["get", "post"],
        operators: ["get", "post"], operators + "/{name}": ["post"],
        data: ["get", "post"], logs: ["get"],
    ]

    /// An app's settings page.
    static func app(_ appID: String) -> String { apps + "/" + appID }

    /// How an app's people sign in.
    static func signInSettings(_ appID: String) -> String { app(appID) + "/sign-in" }

    /// An app's destinations.
    static func destinations(_ appID: String) -> String { app(appID) + "/destinations" }

    /// An app's activation page.
    static func activation(_ appID: String) -> String { app(appID) + "/activation" }

    /// Whether `path` is one of the console's: its forms are form bodies, not JSON.
    static func takesForms(_ path: String) -> Bool {
        path == root || path.hasPrefix(root + "/")
    }
}

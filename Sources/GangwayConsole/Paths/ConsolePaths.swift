/// Where the operator's console lives, written once: its pages under `/console`, which
/// take form bodies and answer in HTML.
public enum ConsolePaths {
    /// The overview, the first page after signing in.
    public static let root = "/console"
    public static let styleSheet = "/console/console.css"
    public static let signIn = "/console/sign-in"
    /// Where a sign-in through an OpenID Connect provider starts, and where the provider
    /// sends the browser back to.
    public static let providerSignIn = "/console/sign-in/provider"
    public static let providerCallback = "/console/sign-in/callback"
    public static let enrol = "/console/enrol"
    public static let signOut = "/console/sign-out"
    public static let users = "/console/users"
    public static let devices = "/console/devices"
    public static let apps = "/console/apps"
    public static let operators = "/console/operators"
    public static let data = "/console/data"
    public static let logs = "/console/logs"
    public static let audit = "/console/audit"
    public static let auditCSV = "/console/audit.csv"
    public static let auditJSON = "/console/audit.json"

    /// The pages, with their methods (for 405 against 404).
    public static let routes: [String: [String]] = [
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
    public static func app(_ appID: String) -> String { apps + "/" + appID }

    /// How an app's people sign in.
    public static func signInSettings(_ appID: String) -> String { app(appID) + "/sign-in" }

    /// An app's destinations.
    public static func destinations(_ appID: String) -> String { app(appID) + "/destinations" }

    /// An app's activation page.
    public static func activation(_ appID: String) -> String { app(appID) + "/activation" }

    /// Whether `path` is one of the console's: its forms are form bodies, not JSON.
    public static func takesForms(_ path: String) -> Bool {
        path == root || path.hasPrefix(root + "/")
    }
}

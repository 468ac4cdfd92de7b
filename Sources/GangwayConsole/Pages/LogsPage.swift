/// The console's logs: an app's uploaded entries, filtered by user, level and time,
/// newest received first, a page at a time.
public struct LogsPage: ConsolePage {
    public struct Entry: Sendable {
        /// When the server received it, and when the device made it.
        public var received: String
        public var time: String
        public var user: String
        /// The device by the name the devices page shows, and the device's own ID.
        public var device: String
        public var deviceID: String
        public var level: String
        public var message: String
        public var source: String
        /// `error` for an error or worse, `warning` for a warning, else empty: how the
        /// row stands out.
        public var severity: String

        public init(
            received: String,
            time: String,
            user: String,
            device: String,
            deviceID: String,
            level: String,
            message: String,
            source: String
        ) {
            self.received = received
            self.time = time
            self.user = user
            self.device = device
            self.deviceID = deviceID
            self.level = level
            self.message = message
            self.source = source
            severity =
                switch level {
                case "error", "critical": "error"
                case "warning": "warning"
                default: ""
                }
        }
    }

    public var template: String { "logs" }
    public let title = "Logs"
    public var signedIn: SignedInOperator?
    public var apps: [ConsoleOption]
    public var user: String
    public var levels: [ConsoleOption]
    public var since: String
    public var until: String
    public var entries: [Entry]
    public var hasEntries: Bool
    public var caption: String
    /// The next page's address (older entries), and the first page's when this is not it.
    public var older: String?
    public var newest: String?
    public var error: String?

    public init(
        signedIn: SignedInOperator,
        apps: [ConsoleOption],
        user: String,
        levels: [ConsoleOption],
        since: String,
        until: String,
        entries: [Entry],
        shown: Int,
        older: String? = nil,
        newest: String? = nil,
        error: String? = nil
    ) {
        self.signedIn = signedIn
        self.apps = apps
        self.user = user
        self.levels = levels
        self.since = since
        self.until = until
        self.entries = entries
        hasEntries = !entries.isEmpty
        caption =
            (newest == nil ? "The newest entries" : "Older entries")
            + ", newest received first, \(shown) a page (times in UTC)"
        self.older = older
        self.newest = newest
        self.error = error
    }
}

/// An app's uploaded log entries, newest first, filtered by user, level and time; every
/// control character a device sent is shown escaped.
public struct LogsPage: ConsolePage {
    public struct Entry: Sendable {
        public var time: String
        public var user: String
        public var device: String
        public var level: String
        public var message: String
        public var source: String

        public init(time: String, user: String, device: String, level: String, message: String, source: String) {
            self.time = time
            self.user = user
            self.device = device
            self.level = level
            self.message = message
            self.source = source
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
        caption = "The newest \(shown) entries at most, newest first (times in UTC)"
        self.error = error
    }
}

/// A page of the console: what its template reads. Mustache reads the stored properties
/// by name (through `Mirror`, which sees no computed property).
public protocol ConsolePage: Sendable {
    /// The template that renders it.
    var template: String { get }
    /// The page's title, in the document's title and, on most pages, its heading.
    var title: String { get }
}

/// Who is signed in, for the header: their name and role, the sections they may open, and
/// the sign-out form's anti-forgery token.
public struct SignedInOperator: Sendable {
    public struct Section: Sendable {
        public var title: String
        public var path: String
        public var current: Bool
    }

    public var name: String
    public var role: String
    public var formToken: String
    public var sections: [Section]

    /// The sections, `current` marked.
    public init(name: String, role: String, formToken: String, current: String) {
        self.name = name
        self.role = role
        self.formToken = formToken
        sections = [
            ("Overview", "/console"), ("Apps", "/console/apps"), ("Users", "/console/users"),
            ("Devices", "/console/devices"), ("Data", "/console/data"), ("Logs", "/console/logs"),
            ("Operators", "/console/operators"),
            ("Audit", "/console/audit"),
        ].map {
            Section(title: $0.0, path: $0.1, current: current == $0.1)
        }
    }
}

/// The sign-in form.
public struct SignInPage: ConsolePage {
    /// An OpenID Connect provider an operator may sign in through instead.
    public struct Provider: Sendable {
        /// The app whose client at the provider the sign-in goes through.
        public var appID: String
        /// Where the person signs in: the provider's host.
        public var host: String

        public init(appID: String, host: String) {
            self.appID = appID
            self.host = host
        }
    }

    public var template: String { "sign-in" }
    public let title = "Sign in"
    public var formToken: String
    /// The name typed before, shown again after a refusal.
    public var name: String
    public var error: String?
    public var notice: String?
    public var providers: [Provider]
    public var hasProviders: Bool
    /// Whether no operator has been added yet: the page then says how the first one is.
    public var isFirstOperator = false

    public init(
        formToken: String,
        name: String = "",
        error: String? = nil,
        notice: String? = nil,
        providers: [Provider] = []
    ) {
        self.formToken = formToken
        self.name = name
        self.error = error
        self.notice = notice
        self.providers = providers
        hasProviders = !providers.isEmpty
    }
}

/// Setting the password and second factor from an enrolment link.
public struct EnrolPage: ConsolePage {
    public var template: String { "enrol" }
    public let title = "Set up your operator account"
    public var formToken: String
    /// The link's token, sent back with the form.
    public var token: String
    public var name: String
    /// The TOTP key in base32, grouped for typing.
    public var secret: String
    /// The key's `otpauth://` address as an SVG data URL, when a QR code could be made.
    public var qrCode: String?
    public var minimumPasswordLength: Int
    public var error: String?

    public init(
        formToken: String,
        token: String,
        name: String,
        secret: String,
        qrCode: String?,
        minimumPasswordLength: Int,
        error: String? = nil
    ) {
        self.formToken = formToken
        self.token = token
        self.name = name
        self.secret = secret
        self.qrCode = qrCode
        self.minimumPasswordLength = minimumPasswordLength
        self.error = error
    }
}

/// A short message, with a link onwards.
public struct MessagePage: ConsolePage {
    public struct Link: Sendable {
        public var title: String
        public var path: String
    }

    public var template: String { "message" }
    public var title: String
    public var message: String
    public var isError: Bool
    public var link: Link?
    public var signedIn: SignedInOperator?
    /// Where the browser goes on its own at once: a navigation from this page, of this
    /// site, so a `SameSite=Strict` cookie set with it is sent there.
    public var refresh: String?

    public init(
        title: String,
        message: String,
        isError: Bool,
        link: (title: String, path: String)? = nil,
        refresh: String? = nil
    ) {
        self.title = title
        self.message = message
        self.isError = isError
        self.link = link.map { Link(title: $0.title, path: $0.path) }
        self.refresh = refresh
    }
}

/// The first page after signing in: the server's figures, what happened over the last
/// day, week or month as charts, and what needs an operator.
public struct OverviewPage: ConsolePage {
    public struct Figure: Sendable {
        public var label: String
        public var value: String
    }

    /// One period to show, as a link.
    public struct Period: Sendable {
        public var title: String
        public var path: String
        public var current: Bool

        public init(title: String, path: String, current: Bool) {
            self.title = title
            self.path = path
            self.current = current
        }
    }

    /// One line of what needs attention, with where to act on it.
    public struct Attention: Sendable {
        public var text: String
        public var path: String

        public init(text: String, path: String) {
            self.text = text
            self.path = path
        }
    }

    /// A registration out of contact past its app's lock or wipe period.
    public struct Overdue: Sendable {
        public var user: String
        public var device: String
        public var app: String
        public var lastContact: String
        public var past: String
        public var path: String

        public init(user: String, device: String, app: String, lastContact: String, past: String, path: String) {
            self.user = user
            self.device = device
            self.app = app
            self.lastContact = lastContact
            self.past = past
            self.path = path
        }
    }

    public var template: String { "overview" }
    public let title = "Overview"
    public var signedIn: SignedInOperator?
    public var figures: [Figure]
    public var periods: [Period]
    /// The period shown (`day`, `week`, `month`), kept when another app is chosen.
    public var period: String
    public var apps: [ConsoleOption]
    public var charts: [ActivityChart]
    /// What the charts show, in words (`The last 7 days, every app, UTC`).
    public var span: String
    public var attention: [Attention]
    public var hasAttention: Bool
    public var overdue: [Overdue]
    public var hasOverdue: Bool
    public var overdueCaption: String
    /// What is wrong with the page's address (an app that is not one, a period misspelled).
    public var error: String?

    public init(
        signedIn: SignedInOperator,
        figures: [(label: String, value: Int)],
        periods: [Period] = [],
        period: String = "week",
        apps: [ConsoleOption] = [],
        charts: [ActivityChart] = [],
        span: String = "",
        attention: [Attention] = [],
        overdue: [Overdue] = [],
        overdueCaption: String = "",
        error: String? = nil
    ) {
        self.signedIn = signedIn
        self.figures = figures.map { Figure(label: $0.label, value: String($0.value)) }
        self.periods = periods
        self.period = period
        self.apps = apps
        self.charts = charts
        self.span = span
        self.attention = attention
        hasAttention = !attention.isEmpty
        self.overdue = overdue
        hasOverdue = !overdue.isEmpty
        self.overdueCaption = overdueCaption
        self.error = error
    }
}

/// The users, a page at a time, found by the start of their name.
public struct UsersPage: ConsolePage {
    public struct Row: Sendable {
        public var username: String
        public var displayName: String
        public var status: String
        public var added: String
        /// What the first button does: `block`, or `unblock` a blocked user.
        public var toggleAction: String
        public var toggleTitle: String
        /// How they sign in: "password", or the hosts of the providers they are linked at.
        public var signsIn: String
        /// The other users shown by the same name, whom this one may be taken for.
        public var sameNameAs: [String]
        public var hasSameName: Bool

        public init(
            username: String,
            displayName: String,
            blocked: Bool,
            added: String,
            providers: [String] = [],
            sameNameAs: [String] = []
        ) {
            self.username = username
            self.displayName = displayName
            status = blocked ? "blocked" : "active"
            self.added = added
            toggleAction = blocked ? "unblock" : "block"
            toggleTitle = blocked ? "Unblock" : "Block…"
            signsIn = providers.isEmpty ? "password" : providers.joined(separator: ", ")
            self.sameNameAs = sameNameAs
            hasSameName = !sameNameAs.isEmpty
        }
    }

    public var template: String { "users" }
    public let title = "Users"
    public var signedIn: SignedInOperator?
    /// What a user name or a name searched for holds.
    public var query: String
    public var users: [Row]
    public var hasUsers: Bool
    public var caption: String
    /// Whether the operator may block, unblock and end sessions.
    public var canAct: Bool
    public var formToken: String
    /// The next page's address, when there may be one.
    public var next: String?
    /// The first page's address, on a page after it.
    public var firstPage: String?
    public var refusal: String?
    /// What the last action did, in words.
    public var notice: String?
    /// What was typed in the form to add a user (not the password), kept after a refusal.
    public var newUsername: String
    public var newDisplayName: String

    public init(
        signedIn: SignedInOperator,
        query: String,
        users: [Row],
        canAct: Bool,
        next: String?,
        refusal: String? = nil,
        notice: String? = nil,
        typed: (username: String, displayName: String) = ("", "")
    ) {
        self.signedIn = signedIn
        self.query = query
        self.users = users
        hasUsers = !users.isEmpty
        caption =
            query.isEmpty
            ? "Users by name" : "Users whose user name or name holds “\(query)”"
        self.canAct = canAct
        formToken = signedIn.formToken
        self.next = next
        self.refusal = refusal
        self.notice = notice
        newUsername = typed.username
        newDisplayName = typed.displayName
    }
}

/// One choice of a `select`: the value the form sends, the text shown, and whether it is
/// the one chosen.
public struct ConsoleOption: Sendable {
    public var value: String
    public var title: String
    public var selected: Bool

    public init(value: String, title: String, selected: Bool) {
        self.value = value
        self.title = title
        self.selected = selected
    }
}

/// An app's device registrations, with what an operator may do to each.
public struct DevicesPage: ConsolePage {
    public struct Action: Sendable {
        public var value: String
        public var title: String
        /// Cannot be undone: styled apart, and asked about first.
        public var danger: Bool
    }

    public struct Row: Sendable {
        public var registrationID: String
        public var username: String
        public var deviceName: String
        public var platform: String
        public var appVersion: String
        public var lastContact: String
        public var status: String
        public var actions: [Action]

        /// - Parameter status: `active`, `locked` or `wiped`.
        public init(
            registrationID: String,
            username: String,
            deviceName: String,
            platform: String,
            appVersion: String,
            lastContact: String,
            status: String,
            wipeReachedDevice: Bool
        ) {
            self.registrationID = registrationID
            self.username = username
            self.deviceName = deviceName
            self.platform = platform
            self.appVersion = appVersion
            self.lastContact = lastContact
            self.status =
                switch status {
                case "wiped": wipeReachedDevice ? "wiped: carried out" : "wiped: waits for the device's next contact"
                default: status
                }
            actions =
                switch status {
                case "active":
                    [
                        Action(value: "lock", title: "Lock", danger: false),
                        Action(value: "wipe", title: "Wipe…", danger: true),
                    ]
                case "locked":
                    [
                        Action(value: "unlock", title: "Unlock", danger: false),
                        Action(value: "wipe", title: "Wipe…", danger: true),
                    ]
                default: []
                }
        }
    }

    public var template: String { "devices" }
    public let title = "Devices"
    public var signedIn: SignedInOperator?
    public var apps: [ConsoleOption]
    public var hasApps: Bool
    public var appID: String
    /// The start of the user names searched for, as typed.
    public var user: String
    public var statuses: [ConsoleOption]
    public var devices: [Row]
    public var hasDevices: Bool
    public var caption: String
    public var canAct: Bool
    public var formToken: String
    public var refusal: String?
    /// What the last action did, in words.
    public var notice: String?
    /// The next page's path, when there is one.
    public var next: String?
    /// The first page's path, on a page after it.
    public var firstPage: String?
    /// The filters shown, which an action's form sends back so the page after it keeps them.
    public var filterUser: String
    public var filterStatus: String

    /// - Parameters:
    ///   - statuses: The statuses a registration can have, to search by.
    ///   - status: The status searched for, or empty for any.
    public init(
        signedIn: SignedInOperator,
        apps: [(id: String, name: String)],
        appID: String,
        user: String = "",
        statuses: [String] = [],
        status: String = "",
        devices: [Row],
        canAct: Bool,
        refusal: String? = nil,
        notice: String? = nil,
        next: String? = nil
    ) {
        self.notice = notice
        filterUser = user
        filterStatus = status
        self.signedIn = signedIn
        self.apps = apps.map { ConsoleOption(value: $0.id, title: "\($0.name) (\($0.id))", selected: $0.id == appID) }
        hasApps = !apps.isEmpty
        self.appID = appID
        self.user = user
        self.statuses = ([""] + statuses).map {
            ConsoleOption(value: $0, title: $0.isEmpty ? "any" : $0, selected: $0 == status)
        }
        self.devices = devices
        hasDevices = !devices.isEmpty
        var caption = "Registrations of \(appID)"
        if !user.isEmpty { caption += ", users starting with “\(user)”" }
        if !status.isEmpty { caption += ", \(status)" }
        self.caption = caption + ", by user"
        self.canAct = canAct
        formToken = signedIn.formToken
        self.refusal = refusal
        self.next = next
    }
}

/// The audit, newest first, a page at a time, with its downloads.
public struct AuditPage: ConsolePage {
    public struct Row: Sendable {
        public var id: String
        public var at: String
        public var actor: String
        public var via: String
        public var action: String
        public var target: String
        public var address: String
        public var detail: String

        public init(
            id: Int64,
            at: String,
            actor: String,
            via: String,
            action: String,
            target: String?,
            address: String?,
            detail: String?
        ) {
            self.id = String(id)
            self.at = at
            self.actor = actor
            self.via = via
            self.action = action
            self.target = target ?? ""
            self.address = address ?? ""
            self.detail = detail ?? ""
        }
    }

    public var template: String { "audit" }
    public let title = "Audit"
    public var signedIn: SignedInOperator?
    public var events: [Row]
    public var hasEvents: Bool
    public var caption: String
    /// The next page's address, when older events may follow, and the first page's when
    /// this is not it.
    public var older: String?
    public var newest: String?
    /// The filter: whose events (an operator's name, or `admin token`), and which action.
    public var actor: String
    public var actions: [ConsoleOption]
    public var isFiltered: Bool

    public init(
        signedIn: SignedInOperator,
        events: [Row],
        older: String?,
        newest: String?,
        actor: String = "",
        actions: [ConsoleOption] = []
    ) {
        self.signedIn = signedIn
        self.events = events
        hasEvents = !events.isEmpty
        let filtered = !actor.isEmpty || actions.contains { $0.selected && !$0.value.isEmpty }
        caption = (newest == nil ? "The newest events" : "Older events") + (filtered ? " of the filter" : "")
        self.older = older
        self.newest = newest
        self.actor = actor
        self.actions = actions
        isFiltered = filtered
    }
}

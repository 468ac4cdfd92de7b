/// The apps the server serves, each with a link to its settings.
public struct AppsPage: ConsolePage {
    public struct Row: Sendable {
        public var id: String
        public var name: String
        public var signInType: String
        public var minimumVersion: String
        public var path: String

        public init(id: String, name: String, signInType: String, minimumVersion: String, path: String) {
            self.id = id
            self.name = name
            self.signInType = signInType
            self.minimumVersion = minimumVersion.isEmpty ? "any" : minimumVersion
            self.path = path
        }
    }

    /// What was typed into the form that adds an app, shown again after a refusal.
    public struct NewApp: Sendable {
        public var id: String
        public var name: String
        public var emailDomains: String

        public init(id: String = "", name: String = "", emailDomains: String = "") {
            self.id = id
            self.name = name
            self.emailDomains = emailDomains
        }
    }

    public var template: String { "apps" }
    public let title = "Apps"
    public var signedIn: SignedInOperator?
    public var apps: [Row]
    public var hasApps: Bool
    /// Whether the operator may add an app (an admin).
    public var canCreate: Bool
    public var formToken: String
    public var newApp: NewApp
    public var error: String?

    public init(
        signedIn: SignedInOperator,
        apps: [Row],
        canCreate: Bool = false,
        newApp: NewApp = NewApp(),
        error: String? = nil
    ) {
        self.signedIn = signedIn
        self.apps = apps
        hasApps = !apps.isEmpty
        self.canCreate = canCreate
        formToken = signedIn.formToken
        self.newApp = newApp
        self.error = error
    }
}

/// One app's settings exchange as a form: the settings in sections, the checklist a person
/// choosing a passcode sees, how people sign in, and (after a change) what devices do at
/// their next contact. An admin changes it; others read it, the controls disabled.
public struct AppSettingsPage: ConsolePage {
    /// One control of the form.
    public struct Field: Sendable {
        /// The name the form sends it under.
        public var key: String
        public var label: String
        /// What the value means, read with the control (`aria-describedby`).
        public var hint: String?
        public var isFlag: Bool
        public var isNumber: Bool
        public var isText: Bool
        public var isChoice: Bool
        /// A number's or a text's value as the control holds it.
        public var value: String
        /// A flag's value.
        public var checked: Bool
        public var minimum: String
        public var maximum: String
        public var maxLength: String
        public var options: [ConsoleOption]
        public var disabled: Bool
        /// Why the value sent was refused, said beside the control, which is marked invalid.
        public var error: String? {
            didSet { describedBy = Self.describedBy(key: key, hint: hint, error: error) }
        }
        /// The IDs of the hint and the error that describe the control, when there are any.
        public var describedBy: String?

        static func describedBy(key: String, hint: String?, error: String?) -> String? {
            let ids = [hint.map { _ in key + "-hint" }, error.map { _ in key + "-error" }].compactMap { $0 }
            return ids.isEmpty ? nil : ids.joined(separator: " ")
        }

        /// What the control holds: a flag, a whole number within `range`, a text of at
        /// most `maxLength` characters, or one of `choices`.
        public enum Kind: Sendable {
            case flag
            case number(ClosedRange<Int>)
            case text(maxLength: Int)
            case choice([String])
        }

        /// - Parameter value: The value as the form sends it: `on` for a flag that is set.
        public init(key: String, label: String, hint: String?, kind: Kind, value: String, disabled: Bool) {
            self.key = key
            self.label = label
            self.hint = hint
            self.value = value
            self.disabled = disabled
            describedBy = Self.describedBy(key: key, hint: hint, error: nil)
            isFlag = false
            isNumber = false
            isText = false
            isChoice = false
            checked = false
            minimum = ""
            maximum = ""
            maxLength = ""
            options = []
            switch kind {
            case .flag:
                isFlag = true
                checked = value == "on"
            case .number(let range):
                isNumber = true
                minimum = String(range.lowerBound)
                maximum = String(range.upperBound)
            case .text(let length):
                isText = true
                maxLength = String(length)
            case .choice(let choices):
                isChoice = true
                options = choices.map { ConsoleOption(value: $0, title: $0, selected: $0 == value) }
            }
        }
    }

    public struct Section: Sendable {
        public var title: String
        public var fields: [Field]

        public init(title: String, fields: [Field]) {
            self.title = title
            self.fields = fields
        }
    }

    public var template: String { "app" }
    public var title: String
    public var signedIn: SignedInOperator?
    public var appID: String
    public var action: String
    public var sections: [Section]
    /// The rules a person choosing a passcode sees, as a checklist.
    public var checklist: [String]
    public var hasChecklist: Bool
    public var signInType: String
    public var provider: String?
    public var canEdit: Bool
    public var formToken: String
    public var error: String?
    /// What devices do at their next contact, after a change was saved.
    public var consequences: [String]
    public var saved: Bool

    public init(
        signedIn: SignedInOperator,
        appID: String,
        name: String,
        action: String,
        sections: [Section],
        checklist: [String],
        signInType: String,
        provider: String?,
        canEdit: Bool,
        error: String? = nil,
        consequences: [String]? = nil
    ) {
        title = "\(name) (\(appID))"
        self.signedIn = signedIn
        self.appID = appID
        self.action = action
        self.sections = sections
        self.checklist = checklist
        hasChecklist = !checklist.isEmpty
        self.signInType = signInType
        self.provider = provider
        self.canEdit = canEdit
        formToken = signedIn.formToken
        self.error = error
        self.consequences = consequences ?? []
        saved = consequences != nil
    }
}

/// An app's activation: a form that makes a signed link, and the link with its QR code,
/// ready to print.
public struct ActivationPage: ConsolePage {
    public var template: String { "activation" }
    public var title: String
    public var signedIn: SignedInOperator?
    public var appID: String
    public var action: String
    public var days: String
    public var minimumDays: String
    public var maximumDays: String
    public var canAct: Bool
    public var formToken: String
    public var error: String?
    /// The link made, its QR code as a `data:` address, and until when it activates.
    public var link: String?
    public var qrCode: String?
    public var expires: String?

    public init(
        signedIn: SignedInOperator,
        appID: String,
        name: String,
        action: String,
        days: String,
        dayRange: ClosedRange<Int>,
        canAct: Bool,
        error: String? = nil,
        link: String? = nil,
        qrCode: String? = nil,
        expires: String? = nil
    ) {
        title = "Activation of \(name)"
        self.signedIn = signedIn
        self.appID = appID
        self.action = action
        self.days = days
        minimumDays = String(dayRange.lowerBound)
        maximumDays = String(dayRange.upperBound)
        self.canAct = canAct
        formToken = signedIn.formToken
        self.error = error
        self.link = link
        self.qrCode = qrCode
        self.expires = expires
    }
}

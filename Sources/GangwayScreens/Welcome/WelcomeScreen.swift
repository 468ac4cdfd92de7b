import Foundation

/// The first screen: the app's name and how to start.
///
/// Not configured, it offers the activation methods (work email, activation link, QR
/// code). Configured, it offers sign-in. Either way it may offer demo mode, and when the
/// app has EULA links, the user must tick the acceptance box before going on.
public struct WelcomeScreen: ScreenModel {
    /// Whether the app knows its server yet.
    public enum Configuration: Sendable, Hashable {
        /// The app must be activated, by one of these methods.
        case notConfigured([ActivationMethod])
        /// The app knows its server: the user signs in.
        case configured
    }

    /// A way to activate the app.
    public enum ActivationMethod: String, Sendable, Hashable, CaseIterable {
        /// Discovery by work email address.
        case email
        /// An activation link from the administrator.
        case link
        /// A QR code from the administrator: its text, or a PNG to decode.
        case qrCode
    }

    /// What the user gave to activate the app.
    public enum Activation: Sendable, Hashable {
        case email(String)
        case link(String)
        case qrCode(String)

        /// The method this activation uses.
        public var method: ActivationMethod {
            switch self {
            case .email: .email
            case .link: .link
            case .qrCode: .qrCode
            }
        }
    }

    /// A link to a legal text the user accepts by ticking the box.
    public struct Link: Sendable, Hashable, Codable {
        public var title: String
        public var url: String
        /// The text's version, recorded with the acceptance.
        public var version: String
        public init(title: String, url: String, version: String = "1") {
            self.title = title
            self.url = url
            self.version = version
        }
    }

    /// What the user can do.
    public enum Input: Sendable, Hashable {
        /// Tick or untick the EULA box.
        case acceptTerms(Bool)
        case activate(Activation)
        case signIn
        case demoMode
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        case activate(Activation)
        case signIn
        case demoMode
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("welcome.title")
        public var detail = StringTable.text("welcome.detail")
        public var configuredDetail = StringTable.text("welcome.configuredDetail")
        public var email = StringTable.text("welcome.email")
        public var link = StringTable.text("welcome.link")
        public var qrCode = StringTable.text("welcome.qrCode")
        public var signIn = StringTable.text("welcome.signIn")
        public var demoMode = StringTable.text("welcome.demoMode")
        public var acceptTerms = StringTable.text("welcome.acceptTerms")
        public var termsRequired = StringTable.text("welcome.termsRequired")
        public var methodUnavailable = StringTable.text("welcome.methodUnavailable")
        public var emptyActivation = StringTable.text("welcome.emptyActivation")
        public init() {}
    }

    public var kind: ScreenKind { .welcome }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// Whether the app knows its server.
    public let configuration: Configuration
    /// Whether demo mode is offered.
    public let offersDemoMode: Bool
    /// Legal texts the user must accept; no box shows when empty.
    public let termsLinks: [Link]
    /// Image names for the renderer, above and below the text.
    public var topImage: String?
    public var bottomImage: String?
    /// Whether the terms box is ticked.
    public private(set) var termsAccepted = false
    /// A message about the last input, if it was not taken.
    public private(set) var notice: String?

    public init(
        configuration: Configuration,
        offersDemoMode: Bool = false,
        termsLinks: [Link] = [],
        topImage: String? = nil,
        bottomImage: String? = nil,
        strings: Strings = Strings()
    ) {
        self.configuration = configuration
        self.offersDemoMode = offersDemoMode
        self.termsLinks = termsLinks
        self.topImage = topImage
        self.bottomImage = bottomImage
        self.strings = strings
    }

    /// Whether the terms box shows and must be ticked.
    public var requiresTerms: Bool { !termsLinks.isEmpty }

    /// The activation methods offered (none when configured).
    public var activationMethods: [ActivationMethod] {
        if case .notConfigured(let methods) = configuration { return methods }
        return []
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        notice = nil
        switch input {
        case .acceptTerms(let accepted):
            termsAccepted = accepted
            return .stay
        case .demoMode:
            return offersDemoMode ? .finish(.demoMode) : .stay
        case .signIn:
            guard configuration == .configured else { return .stay }
            return proceed(.signIn)
        case .activate(let activation):
            guard activationMethods.contains(activation.method) else {
                notice = strings.methodUnavailable
                return .stay
            }
            guard !activation.text.isEmpty else {
                notice = strings.emptyActivation
                return .stay
            }
            return proceed(.activate(activation))
        }
    }

    private mutating func proceed(_ outcome: Outcome) -> ScreenStep<Outcome> {
        guard termsAccepted || !requiresTerms else {
            notice = strings.termsRequired
            return .stay
        }
        return .finish(outcome)
    }
}

extension WelcomeScreen.Activation {
    var text: String {
        switch self {
        case .email(let text), .link(let text), .qrCode(let text): text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

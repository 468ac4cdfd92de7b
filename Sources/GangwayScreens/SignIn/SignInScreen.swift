import Foundation
import GangwayPolicy

/// Basic sign-in: user name and password. After a refused attempt the flow shows the
/// screen again with the server's message, or with the time to try again when sign-in
/// is throttled.
public struct SignInScreen: ScreenModel {
    /// What the user can do.
    public enum Input: Sendable, Hashable {
        case username(String)
        case password(Secret)
        case submit
        /// Fill both fields and submit: one step for scripts.
        case signIn(username: String, password: Secret)
        case cancel
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        case credentials(username: String, password: Secret)
        case cancelled
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("signIn.title")
        public var username = StringTable.text("signIn.username")
        public var password = StringTable.text("signIn.password")
        public var submit = StringTable.text("signIn.submit")
        public var cancel = StringTable.text("signIn.cancel")
        public var missing = StringTable.text("signIn.missing")
        public var tryAgainAt = StringTable.text("signIn.tryAgainAt")
        public init() {}
    }

    public var kind: ScreenKind { .signIn }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// The user name typed so far (kept after a refused attempt).
    public private(set) var username: String
    private var password: Secret = ""
    /// The server's message about the last attempt.
    public let message: String?
    /// When sign-in is throttled: how long until the next attempt is allowed.
    public let retryAfter: Duration?
    /// Whether the user may go back.
    public let allowsCancel: Bool
    /// A message about the last input, if it was not taken.
    public private(set) var notice: String?

    public init(
        username: String = "",
        message: String? = nil,
        retryAfter: Duration? = nil,
        allowsCancel: Bool = true,
        strings: Strings = Strings()
    ) {
        self.username = username
        self.message = message
        self.retryAfter = retryAfter
        self.allowsCancel = allowsCancel
        self.strings = strings
    }

    /// The line explaining the throttling, if any.
    public var throttleNotice: String? {
        retryAfter.map { StringTable.format(strings.tryAgainAt, [Int($0.components.seconds)]) }
    }

    /// Whether a password has been typed.
    public var hasPassword: Bool { !password.isEmpty }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        notice = nil
        switch input {
        case .username(let text):
            username = text
            return .stay
        case .password(let text):
            password = text
            return .stay
        case .signIn(let name, let secret):
            username = name
            password = secret
            return submit()
        case .submit:
            return submit()
        case .cancel:
            return allowsCancel ? .finish(.cancelled) : .stay
        }
    }

    private mutating func submit() -> ScreenStep<Outcome> {
        let name = username.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, !password.isEmpty else {
            notice = strings.missing
            return .stay
        }
        return .finish(.credentials(username: name, password: password))
    }
}

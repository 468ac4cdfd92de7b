/// Something failed: what happened, what to do, and retry when it may help.
public struct ErrorScreen: ScreenModel {
    /// What the user can do.
    public enum Input: Sendable, Hashable {
        case retry
        case cancel
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        case retry
        case cancel
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("error.title")
        public var retry = StringTable.text("error.retry")
        public var cancel = StringTable.text("error.cancel")
        public init() {}
    }

    public var kind: ScreenKind { .error }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// What happened, for a person. Never a secret.
    public let message: String
    /// What the user can do about it.
    public let advice: String?
    /// Whether "try again" shows.
    public let allowsRetry: Bool

    public init(message: String, advice: String? = nil, allowsRetry: Bool = true, strings: Strings = Strings()) {
        self.message = message
        self.advice = advice
        self.allowsRetry = allowsRetry
        self.strings = strings
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        switch input {
        case .retry: allowsRetry ? .finish(.retry) : .stay
        case .cancel: .finish(.cancel)
        }
    }
}

/// The end-user licence agreement: its text and version, accept or decline.
public struct EULAScreen: ScreenModel {
    /// What the user can do.
    public enum Input: Sendable, Hashable {
        case accept
        case decline
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        /// Accepted, with the version accepted.
        case accepted(version: String)
        case declined
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("eula.title")
        public var accept = StringTable.text("eula.accept")
        public var decline = StringTable.text("eula.decline")
        public init() {}
    }

    public var kind: ScreenKind { .eula }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// The agreement's version, stored once accepted.
    public let version: String
    /// The agreement's text.
    public let text: String

    public init(version: String, text: String, strings: Strings = Strings()) {
        self.version = version
        self.text = text
        self.strings = strings
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        switch input {
        case .accept: .finish(.accepted(version: version))
        case .decline: .finish(.declined)
        }
    }
}

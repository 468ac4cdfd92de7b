/// Asking for the user's consent (to usage data, to crash reports, …): one or more pages,
/// required or optional, under a version so a newer version is asked again.
public struct ConsentScreen: ScreenModel {
    /// One page of the consent text.
    public struct Page: Sendable, Hashable {
        public var title: String
        public var body: String
        public init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    /// What the user can do.
    public enum Input: Sendable, Hashable {
        case next
        case back
        case accept
        case decline
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        case accepted(version: Int)
        case declined(version: Int)
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var next = StringTable.text("consent.next")
        public var back = StringTable.text("consent.back")
        public var accept = StringTable.text("consent.accept")
        public var decline = StringTable.text("consent.decline")
        public var requiredNotice = StringTable.text("consent.requiredNotice")
        public init() {}
    }

    public var kind: ScreenKind { .consent }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// What the consent is for, as stored with the answer.
    public let topic: String
    /// The version asked for.
    public let version: Int
    /// Whether the app cannot go on without it.
    public let isRequired: Bool
    /// The pages, read in order; accept and decline show on the last (at once when there
    /// are none).
    public let pages: [Page]
    /// The page shown now.
    public private(set) var pageIndex = 0

    public init(topic: String, version: Int, isRequired: Bool, pages: [Page], strings: Strings = Strings()) {
        self.topic = topic
        self.version = version
        self.isRequired = isRequired
        self.pages = pages
        self.strings = strings
    }

    /// Whether the last page shows, with accept and decline.
    public var isOnLastPage: Bool { pageIndex >= pages.count - 1 }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        switch input {
        case .next:
            pageIndex = max(0, min(pageIndex + 1, pages.count - 1))
            return .stay
        case .back:
            pageIndex = max(pageIndex - 1, 0)
            return .stay
        case .accept:
            return isOnLastPage ? .finish(.accepted(version: version)) : .stay
        case .decline:
            return .finish(.declined(version: version))
        }
    }
}

import GangwayScreens

/// The user declined something the app cannot be used without.
public struct ConsentError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case eulaDeclined
        case consentDeclined
    }

    private let code: Code
    /// The consent's topic, for ``consentDeclined``.
    public let topic: String?

    private init(_ code: Code, topic: String? = nil) {
        self.code = code
        self.topic = topic
    }

    /// The licence agreement was declined.
    public static let eulaDeclined = Self(.eulaDeclined)
    /// A required consent was declined.
    public static let consentDeclined = Self(.consentDeclined)

    static func consentDeclined(_ topic: String) -> Self { Self(.consentDeclined, topic: topic) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        switch code {
        case .eulaDeclined: "the licence agreement was declined"
        case .consentDeclined: "a required consent was declined" + (topic.map { " (\($0))" } ?? "")
        }
    }

    /// What was declined, for the person, from the string table.
    public var message: String {
        switch code {
        case .eulaDeclined: StringTable.text("declined.eula")
        case .consentDeclined: StringTable.text("declined.consent")
        }
    }
}

/// The app's own page before the platform asks for a permission: what it is for, then
/// "Allow", which goes on to the platform's question, or "Not Now", which skips it (the
/// onboarding goes on either way). One page per permission, numbered when there are
/// several.
public struct PermissionScreen: ScreenModel {
    /// What the user can do.
    public enum Input: Sendable, Hashable {
        /// Go on to the platform's question.
        case allow
        /// Skip this permission; the app works without it.
        case notNow
    }

    /// What the screen ends with.
    public typealias Outcome = Input

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        /// The page's title for each permission.
        public var titles: [Permission: String] = Dictionary(
            uniqueKeysWithValues: Permission.allCases.map { ($0, StringTable.text("permission.title.\($0)")) }
        )
        /// What each permission is for, when the app gives no reason of its own.
        public var reasons: [Permission: String] = Dictionary(
            uniqueKeysWithValues: Permission.allCases.map { ($0, StringTable.text("permission.reason.\($0)")) }
        )
        public var allow = StringTable.text("permission.allow")
        public var notNow = StringTable.text("permission.notNow")
        /// Says that the app works without it; shown on every page.
        public var optionalNotice = StringTable.text("permission.optional")
        public init() {}
    }

    public var kind: ScreenKind { .permission }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// The permission asked for.
    public let permission: Permission
    /// Why the app asks, from the app; `nil` for the default text of ``Strings/reasons``.
    public let reason: String?
    /// This page's place among the permissions asked (1-based), and how many there are.
    public let position: Int
    public let count: Int

    public init(
        permission: Permission,
        reason: String? = nil,
        position: Int = 1,
        count: Int = 1,
        strings: Strings = Strings()
    ) {
        self.permission = permission
        self.reason = reason
        self.position = max(1, position)
        self.count = max(1, count, position)
        self.strings = strings
    }

    /// The page's title.
    public var title: String { strings.titles[permission] ?? permission.rawValue }
    /// What the page says the permission is for.
    public var body: String { reason ?? strings.reasons[permission] ?? "" }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> { .finish(input) }
}

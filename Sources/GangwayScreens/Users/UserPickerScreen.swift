import Foundation

/// On a shared device: the users onboarded here, the current one marked, and "add user".
public struct UserPickerScreen: ScreenModel {
    /// A user as the picker shows them.
    public struct User: Sendable, Hashable, Identifiable {
        /// The user's onboarding ID.
        public var id: UUID
        public var displayName: String
        public init(id: UUID, displayName: String) {
            self.id = id
            self.displayName = displayName
        }
    }

    /// What the user can do.
    public enum Input: Sendable, Hashable {
        case select(UUID)
        /// Select by display name: one step for scripts.
        case selectNamed(String)
        case addUser
    }

    /// What the screen ends with.
    public enum Outcome: Sendable, Hashable {
        case selected(UUID)
        case addUser
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("userPicker.title")
        public var addUser = StringTable.text("userPicker.addUser")
        public var current = StringTable.text("userPicker.current")
        public var unknownUser = StringTable.text("userPicker.unknownUser")
        public init() {}
    }

    public var kind: ScreenKind { .userPicker }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// The users, in the order they were added.
    public let users: [User]
    /// The user who used the app last.
    public let current: UUID?
    /// Whether "add user" shows.
    public let allowsAddUser: Bool
    /// A message about the last input, if it was not taken.
    public private(set) var notice: String?

    public init(users: [User], current: UUID?, allowsAddUser: Bool = true, strings: Strings = Strings()) {
        self.users = users
        self.current = current
        self.allowsAddUser = allowsAddUser
        self.strings = strings
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        notice = nil
        switch input {
        case .select(let id):
            guard users.contains(where: { $0.id == id }) else {
                notice = strings.unknownUser
                return .stay
            }
            return .finish(.selected(id))
        case .selectNamed(let name):
            guard let user = users.first(where: { $0.displayName == name }) else {
                notice = strings.unknownUser
                return .stay
            }
            return .finish(.selected(user.id))
        case .addUser:
            return allowsAddUser ? .finish(.addUser) : .stay
        }
    }
}

import Foundation
import GangwayScreens

/// A shared device: several people onboard on it, each with their own store. A launch
/// shows the user picker (the users in registration order, the selected one marked, and
/// "add user"); picking a user restores them, "add user" onboards a new one.
///
/// A server user can be onboarded once per device: signing in again as them during
/// "add user" is ``UserError/userAlreadyExists`` naming the registration, and the
/// ``SessionManager`` offers to unlock that user instead (``ExistingUserScreen``).
public struct MultiUserIDManager: OnboardingIDManager {
    public let registry: UserRegistry
    /// The picker's texts.
    public var strings: UserPickerScreen.Strings
    public var existingUserStrings: ExistingUserScreen.Strings

    public init(
        registry: UserRegistry,
        strings: UserPickerScreen.Strings = UserPickerScreen.Strings(),
        existingUserStrings: ExistingUserScreen.Strings = ExistingUserScreen.Strings()
    ) {
        self.registry = registry
        self.strings = strings
        self.existingUserStrings = existingUserStrings
    }

    public var isMultiUser: Bool { true }

    public func launchFlow(presenter: any Presenter) async throws -> FlowType {
        let users = try registry.users()
        guard !users.isEmpty else { return .onboard }
        let screen = UserPickerScreen(
            users: Self.distinguished(users),
            current: try registry.selectedUserID(),
            strings: strings
        )
        switch try await presenter.present(screen) {
        case .selected(let id): return .restore(id)
        case .addUser: return .onboard
        }
    }

    /// The users as the picker shows them: a display name two users share is followed by
    /// the user name kept for it (the first of them, registered before anyone shared the
    /// name, by its number), so no one picks another person by mistake.
    static func distinguished(_ users: [RegisteredUser]) -> [UserPickerScreen.User] {
        var seen: [String: Int] = [:]
        let counts = Dictionary(grouping: users, by: { $0.displayName.lowercased() }).mapValues(\.count)
        return users.map { user in
            let key = user.displayName.lowercased()
            guard counts[key, default: 0] > 1 else {
                return UserPickerScreen.User(id: user.id, displayName: user.displayName)
            }
            seen[key, default: 0] += 1
            let detail = user.userName ?? "#\(seen[key, default: 1])"
            return UserPickerScreen.User(id: user.id, displayName: "\(user.displayName) (\(detail))")
        }
    }

    public func checkNewUser(_ user: ServerUser) throws {
        if let existing = try registry.userID(forServerUser: user.id) {
            throw UserError.userAlreadyExists(existing)
        }
    }

    public func register(_ id: UUID, as user: ServerUser?) throws {
        guard let user else { throw UserError.serverUserMissing }
        try registry.register(id, displayName: user.displayName, serverUserID: user.id)
    }
}

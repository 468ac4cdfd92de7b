import Foundation
import GangwayScreens

/// Decides whose session a launch opens and keeps track of the onboarded users.
///
/// Gangway ships two: ``SingleUserIDManager`` (one user per device) and
/// ``MultiUserIDManager`` (a shared device, with a user picker and "add user").
public protocol OnboardingIDManager: Sendable {
    /// Whether several people share the device.
    var isMultiUser: Bool { get }

    /// The registry the manager keeps its users in.
    var registry: UserRegistry { get }

    /// The flow a launch starts: restore a known user, or onboard a new one. A
    /// multi-user manager asks through the user picker when users exist.
    func launchFlow(presenter: any Presenter) async throws -> FlowType

    /// Checks, during onboarding, the server user who just signed in.
    /// - Throws: ``UserError/userAlreadyExists`` when a multi-user device already has them.
    func checkNewUser(_ user: ServerUser) throws

    /// Checks, during a passcode reset for `id`, the server user who just signed in.
    /// - Throws: ``UserError/userMismatch`` when it is someone else.
    func checkReturningUser(_ user: ServerUser, for id: UUID) throws

    /// Records a user who finished onboarding, and selects them.
    func register(_ id: UUID, as user: ServerUser?) throws

    /// The texts of the screen shown instead of ``UserError/userAlreadyExists`` and
    /// ``UserError/userMismatch``.
    var existingUserStrings: ExistingUserScreen.Strings { get }
}

extension OnboardingIDManager {
    public var existingUserStrings: ExistingUserScreen.Strings { ExistingUserScreen.Strings() }

    /// The users, in registration order.
    public func users() throws -> [RegisteredUser] { try registry.users() }

    /// Makes `id` the selected user.
    public func select(_ id: UUID) throws { try registry.select(id) }

    /// Forgets `id`.
    public func unregister(_ id: UUID) throws { try registry.remove(id) }

    public func checkReturningUser(_ user: ServerUser, for id: UUID) throws {
        guard try registry.isServerUser(user.id, registeredAs: id) != false else {
            throw UserError.userMismatch(try registry.userID(forServerUser: user.id))
        }
    }
}

import Foundation
import GangwayScreens

/// One user per device: a launch restores that user when there is one, and onboards
/// otherwise.
public struct SingleUserIDManager: OnboardingIDManager {
    public let registry: UserRegistry

    public init(registry: UserRegistry) {
        self.registry = registry
    }

    public var isMultiUser: Bool { false }

    public func launchFlow(presenter: any Presenter) async throws -> FlowType {
        if let user = try registry.users().last { return .restore(user.id) }
        return .onboard
    }

    /// A single-user device onboards only when it has no user, so anyone may.
    public func checkNewUser(_ user: ServerUser) throws {}

    /// Registers `id` as the device's only user, forgetting any earlier one.
    public func register(_ id: UUID, as user: ServerUser?) throws {
        for earlier in try registry.users() where earlier.id != id { try registry.remove(earlier.id) }
        try registry.register(id, displayName: user?.displayName ?? "", serverUserID: user?.id)
    }
}

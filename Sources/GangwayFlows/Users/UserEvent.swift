import Foundation

/// What happened to the device's users, as session observers are told.
public enum UserEvent: Sendable, Hashable {
    /// A user finished onboarding.
    case userAdded(UUID)
    /// Another user's session opened in place of the previous user's.
    case userSwitched(to: UUID)
    /// A user and their data were removed from the device.
    case userRemoved(UUID)
    /// The user's data was erased because it may not stay on the device (the server
    /// wiped the registration, or the device was out of contact too long), with the
    /// reason for the person; ``userRemoved(_:)`` follows.
    case userWiped(UUID, reason: String)
    /// A session was closed because it may not go on (``SessionEndingError``); the user
    /// and their data stay, and the next open asks what the cause needs.
    case sessionEnded(UUID, reason: String)
}

import Foundation

/// A user onboarded on this device, as the user registry keeps them.
public struct RegisteredUser: Sendable, Hashable, Codable, Identifiable {
    /// The onboarding ID: it names the user's store and every flow for the user.
    public let id: UUID
    /// The name shown in the user picker.
    public var displayName: String
    /// A keyed hash (HMAC-SHA256 under the registry's own key) of the server user ID, in
    /// hex; `nil` when onboarding did not say who signed in.
    public let serverUserHash: String?
    /// The server's user name, kept only for a user registered while another user here
    /// had the same display name, to tell the two apart in the picker; `nil` otherwise.
    public let userName: String?
    /// When onboarding finished.
    public let registeredAt: Date
    /// Whether this user set the device up: the first registered, or, once that user was
    /// removed, the next one registered. At most one user is primary.
    public let isPrimary: Bool

    public init(
        id: UUID,
        displayName: String,
        serverUserHash: String?,
        userName: String? = nil,
        registeredAt: Date,
        isPrimary: Bool
    ) {
        self.id = id
        self.displayName = displayName
        self.serverUserHash = serverUserHash
        self.userName = userName
        self.registeredAt = registeredAt
        self.isPrimary = isPrimary
    }
}

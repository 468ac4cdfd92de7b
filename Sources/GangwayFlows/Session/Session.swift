import Foundation

/// An open session: one user's data unlocked in the app.
public struct Session: Sendable, Hashable {
    /// A fresh ID per opening: a closed session's ID never comes back.
    public let id: UUID
    /// The user whose session it is.
    public let onboardingID: UUID
    /// When it opened, on the monotonic clock.
    public let openedAt: Duration

    public init(id: UUID = UUID(), onboardingID: UUID, openedAt: Duration) {
        self.id = id
        self.onboardingID = onboardingID
        self.openedAt = openedAt
    }
}

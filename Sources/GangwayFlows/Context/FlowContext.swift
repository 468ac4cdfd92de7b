import Foundation
import GangwayScreens
import GangwayStore

/// What a flow's steps share: the user's onboarding ID, typed information, the credential
/// store, and the presenter that shows screens.
public struct FlowContext: Sendable {
    /// The ID of the user being onboarded or restored.
    public var onboardingID: UUID
    /// Typed information the steps hand each other.
    public var info = FlowInfo()
    /// Where steps keep secrets: in memory until the secure store is open.
    public var credentials: any CredentialStore
    /// How steps show screens.
    public let presenter: any Presenter

    public init(
        onboardingID: UUID,
        presenter: any Presenter,
        credentials: any CredentialStore = InMemoryCredentialStore()
    ) {
        self.onboardingID = onboardingID
        self.presenter = presenter
        self.credentials = credentials
    }
}

extension FlowContext {
    /// The user's secure store, once a store step has opened it.
    public var secureStore: SecureStore? { credentials as? SecureStore }
}

import Foundation
import GangwayScreens

/// Which legal texts a person accepted on the welcome screen, in which versions, and
/// when: kept in their credential store (and so, after onboarding, in their secure
/// store), for the app to show or to prove.
public struct TermsAcceptance: Sendable, Hashable, Codable {
    /// The texts accepted, as the welcome screen linked them.
    public let documents: [WelcomeScreen.Link]
    /// When the box was ticked and the person went on.
    public let acceptedAt: Date

    public init(documents: [WelcomeScreen.Link], acceptedAt: Date) {
        self.documents = documents
        self.acceptedAt = acceptedAt
    }

    static let key = "gangway.welcome.termsAcceptance"

    /// The person's acceptance, if they gave one.
    public static func load(from credentials: any CredentialStore) throws -> TermsAcceptance? {
        guard let data = try credentials.data(forKey: key) else { return nil }
        return try JSONDecoder().decode(TermsAcceptance.self, from: data)
    }

    /// Records the acceptance.
    public func save(to credentials: any CredentialStore) throws {
        try credentials.put(JSONEncoder().encode(self), forKey: Self.key)
    }
}

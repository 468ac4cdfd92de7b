import Foundation

/// A user's answer to one version of a consent, kept in their credential store (and so,
/// after onboarding, in their secure store).
public struct ConsentRecord: Sendable, Hashable, Codable {
    /// The version answered.
    public let version: Int
    /// Whether the user allowed it.
    public let accepted: Bool
    /// The server's version of the consent answered, for a consent that follows it.
    public let serverVersion: String?

    public init(version: Int, accepted: Bool, serverVersion: String? = nil) {
        self.version = version
        self.accepted = accepted
        self.serverVersion = serverVersion
    }

    static func key(for topic: String) -> String { "gangway.consent.\(topic)" }

    /// The user's last answer about `topic`, if any.
    public static func load(topic: String, from credentials: any CredentialStore) throws -> ConsentRecord? {
        guard let data = try credentials.data(forKey: key(for: topic)) else { return nil }
        return try JSONDecoder().decode(ConsentRecord.self, from: data)
    }

    /// Records the answer: how an app withdraws or gives a consent from its settings.
    public func save(topic: String, to credentials: any CredentialStore) throws {
        try credentials.put(JSONEncoder().encode(self), forKey: Self.key(for: topic))
    }
}

import Foundation

/// A backend of an app's, reached by its devices through the server as the signed-in
/// person.
public struct DestinationRecord: Sendable, Hashable, Codable {
    /// What a forwarded request carries to the backend.
    public enum Authentication: String, Sendable, Hashable, CaseIterable, Codable {
        /// The signed-in person, as a short-lived token the server signs.
        case identity
        /// A fixed header value the server holds sealed.
        case credential
    }

    public var appID: String
    public var name: String
    /// The backend's base URL: a forwarded path is appended to it.
    public var url: String
    public var authentication: Authentication
    /// For ``Authentication/credential``: the header, and its value sealed under the
    /// server key.
    public var credentialHeader: String?
    public var sealedCredential: Data?
    public var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case appID, name, url, authentication, credentialHeader, createdAt
        case sealedCredential = "credential"
    }

    public init(
        appID: String,
        name: String,
        url: String,
        authentication: Authentication,
        credentialHeader: String? = nil,
        sealedCredential: Data? = nil,
        createdAt: Date
    ) {
        self.appID = appID
        self.name = name
        self.url = url
        self.authentication = authentication
        self.credentialHeader = credentialHeader
        self.sealedCredential = sealedCredential
        self.createdAt = createdAt
    }
}

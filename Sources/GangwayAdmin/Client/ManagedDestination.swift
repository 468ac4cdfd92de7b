import Foundation
import GangwayProtocol

/// A backend of an app's, reached by its devices through the server as the signed-in
/// person, as the server's admin API shows it.
public struct ManagedDestination: Sendable, Hashable, Codable {
    public var name: String
    /// The backend's base URL.
    public var url: String
    /// `identity` (the person, as a token the server signs) or `credential` (a fixed
    /// header the server holds).
    public var authentication: String
    /// For `credential`: the header the server sets; its value is never shown.
    public var credentialHeader: String?
    public var createdAt: Date
    /// The requests forwarded in the last 7 days, by the backend's status.
    public var requests: [RequestCount]

    /// How many requests the backend answered with one status.
    public struct RequestCount: Sendable, Hashable, Codable {
        /// The backend's HTTP status; 0 when it could not be reached.
        public var status: Int
        public var count: Int
    }

    init(_ wire: Components.Schemas.Destination) {
        name = wire.name
        url = wire.url
        authentication = wire.authentication.rawValue
        credentialHeader = wire.credentialHeader
        createdAt = wire.createdAt
        requests = wire.requests.map { RequestCount(status: Int($0.status), count: Int($0.count)) }
    }
}

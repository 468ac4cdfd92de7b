import Foundation
import GangwayProtocol

/// A user as the server's admin API shows it (never their password): the API's own type.
public typealias ManagedUser = Components.Schemas.User

extension Components.Schemas.User {
    /// A blocked user cannot sign in; their sessions were revoked when they were blocked.
    public var isBlocked: Bool { blocked }

    /// The user's attributes, by name: which entities of a set with a subset they receive.
    public var attributeValues: [String: [String]] { attributes?.additionalProperties ?? [:] }
}

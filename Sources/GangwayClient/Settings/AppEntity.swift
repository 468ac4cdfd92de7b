public import Foundation
package import GangwayProtocol

/// One entity of the app's data, as the server sent it: a record of one entity set
/// (such as `checks`) with named text fields.
public struct AppEntity: Sendable, Hashable, Codable, Identifiable {
    /// Unique within its entity set.
    public var id: String
    /// Field names to text values.
    public var fields: [String: String]
    /// 1 when the entity was first stored; one more at each change on the server.
    public var version: Int64
    /// When it last changed on the server.
    public var updatedAt: Date
    /// Who changed it last: `admin`, or a user name.
    public var updatedBy: String

    public init(id: String, fields: [String: String], version: Int64, updatedAt: Date, updatedBy: String) {
        self.id = id
        self.fields = fields
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    /// The value of `field`, or `nil`.
    public subscript(field: String) -> String? { fields[field] }
}

extension AppEntity {
    package init(_ wire: Components.Schemas.Entity) {
        self.init(
            id: wire.id,
            fields: wire.fields.additionalProperties,
            version: wire.version,
            updatedAt: wire.updatedAt,
            updatedBy: wire.updatedBy
        )
    }
}

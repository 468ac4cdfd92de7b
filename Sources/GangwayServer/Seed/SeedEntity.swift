/// An entity of an app's data a ``ServerSeed`` puts, as
/// `PUT /admin/apps/{app}/data/{entitySet}/{id}` would.
public struct SeedEntity: Sendable, Hashable {
    /// The app the data belongs to.
    public var app: String
    /// The entity set, such as `checks`.
    public var entitySet: String
    /// The entity's ID within its set.
    public var id: String
    /// The entity's fields, names to text values.
    public var fields: [String: String]

    /// An entity of `entitySet` in `app`.
    public init(app: String, entitySet: String, id: String, fields: [String: String]) {
        self.app = app
        self.entitySet = entitySet
        self.id = id
        self.fields = fields
    }
}

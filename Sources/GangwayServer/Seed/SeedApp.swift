import GangwayProtocol

/// An app a ``ServerSeed`` creates, as `POST /admin/apps` would.
public struct SeedApp: Sendable, Hashable {
    /// The app's ID, such as `checks`.
    public var id: String
    /// The name people see.
    public var name: String
    /// The work-email domains that discover the app.
    public var emailDomains: [String]
    /// The oldest app version still allowed, if any.
    public var minimumVersion: String?
    /// Settings that differ from the defaults, if any.
    public var settings: Components.Schemas.AppSettingsUpdate?
    /// The schemas of its entity sets, by set, declared right after the app is created.
    public var schemas: [String: [EntityField]]
    /// The subsets of the sets with a schema, by set: which entities each user receives.
    public var subsets: [String: EntitySubset]

    /// An app with the given ID, name and email domains.
    public init(
        id: String,
        name: String,
        emailDomains: [String] = [],
        minimumVersion: String? = nil,
        settings: Components.Schemas.AppSettingsUpdate? = nil,
        schemas: [String: [EntityField]] = [:],
        subsets: [String: EntitySubset] = [:]
    ) {
        self.schemas = schemas
        self.subsets = subsets
        self.id = id
        self.name = name
        self.emailDomains = emailDomains
        self.minimumVersion = minimumVersion
        self.settings = settings
    }
}

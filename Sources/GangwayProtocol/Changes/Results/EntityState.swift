/// An entity as the server holds it, for merging: its fields, its version, and the
/// version at which each field last changed.
public struct EntityState: Sendable, Hashable, Codable {
    public var fields: [String: String]
    /// 1 when created; one more at each change that changed a field.
    public var version: Int64
    /// The version at which each field was last set. A field missing here was last set
    /// at ``version`` at the latest (entities stored before fields had versions), or never
    /// when it has no value either.
    public var fieldVersions: [String: Int64]

    public init(fields: [String: String], version: Int64, fieldVersions: [String: Int64] = [:]) {
        self.fields = fields
        self.version = version
        self.fieldVersions = fieldVersions
    }

    /// The version at which `field` was last set; 0 when it never was.
    public func versionOfField(_ field: String) -> Int64 {
        if let version = fieldVersions[field] { return version }
        return fields[field] == nil ? 0 : version
    }
}

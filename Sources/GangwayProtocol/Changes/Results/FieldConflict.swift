/// A field both the author and someone else changed since the author's base version: the
/// server keeps its value and records both.
public struct FieldConflict: Sendable, Hashable, Codable {
    public var field: String
    /// What the server holds, and keeps; `nil` when the field has no value there.
    public var serverValue: String?
    /// What the author set.
    public var deviceValue: String

    public init(field: String, serverValue: String?, deviceValue: String) {
        self.field = field
        self.serverValue = serverValue
        self.deviceValue = deviceValue
    }
}

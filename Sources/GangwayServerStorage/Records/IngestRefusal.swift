/// A row of an ingest batch that was not applied, and why.
public struct IngestRefusal: Sendable, Hashable, Codable {
    public var line: Int
    public var id: String
    /// A stable code: `FIELD_NOT_VALID` (the set's schema refuses the fields) or
    /// `ENTITY_SET_FULL`.
    public var code: String
    /// The reason, in the API's words.
    public var message: String

    public init(line: Int, id: String, code: String, message: String) {
        self.line = line
        self.id = id
        self.code = code
        self.message = message
    }
}

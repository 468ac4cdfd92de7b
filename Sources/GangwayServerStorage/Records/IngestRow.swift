/// One row of an ingest batch (a backend's or an integration job's bulk write of an
/// entity set): an entity to put, with its fields, or to remove.
public struct IngestRow: Sendable, Hashable {
    /// Where the row stands in its batch, from 1: a batch sent again skips the rows
    /// already applied by their line.
    public var line: Int
    public var id: String
    /// The entity's fields; `nil` removes it.
    public var fields: [String: String]?

    public init(line: Int, id: String, fields: [String: String]?) {
        self.line = line
        self.id = id
        self.fields = fields
    }
}

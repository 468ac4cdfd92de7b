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

/// Where an ingest batch stands: the rows applied so far, counted, and those refused.
public struct IngestProgress: Sendable, Hashable {
    /// The last line of the batch applied (or refused); rows up to it are skipped when
    /// the batch is sent again.
    public var linesDone: Int
    /// Entities written.
    public var written: Int
    /// Entities removed (a removal of an entity the set does not hold counts in neither).
    public var removed: Int
    /// Rows refused, all of them counted.
    public var refusedCount: Int
    /// The first ``IngestProgress/refusalsKept`` refusals, in line order.
    public var refused: [IngestRefusal]

    /// How many refusals a batch keeps to report; the rest are counted.
    public static let refusalsKept = 1_000

    public init(
        linesDone: Int = 0,
        written: Int = 0,
        removed: Int = 0,
        refusedCount: Int = 0,
        refused: [IngestRefusal] = []
    ) {
        self.linesDone = linesDone
        self.written = written
        self.removed = removed
        self.refusedCount = refusedCount
        self.refused = refused
    }
}

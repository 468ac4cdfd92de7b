import GangwayWire

/// Where an ingest batch stands, as the server reports it after a request: the batch's
/// lines done, what they wrote and removed, and the lines it refused.
public struct IngestReport: Sendable, Hashable {
    /// A line of the batch that was not applied, and why.
    public struct Refusal: Sendable, Hashable {
        /// The line in the batch, from 1.
        public var line: Int
        /// The entity's ID, when the line named one that can be an ID.
        public var id: String?
        /// A stable code: `INVALID_LINE`, `INVALID_FIELD`, `FIELD_NOT_VALID`,
        /// `ENTITY_SET_FULL`; more may come.
        public var code: String
        /// Why, naming fields, never a value.
        public var message: String

        public init(line: Int, id: String? = nil, code: String, message: String) {
            self.line = line
            self.id = id
            self.code = code
            self.message = message
        }
    }

    public var batchID: String
    /// The lines the request's body held.
    public var lines: Int
    /// The batch's lines done, from its first, however many requests sent them.
    public var linesDone: Int
    /// The lines of the request the batch had done before it (the batch sent again):
    /// they applied nothing now.
    public var linesDoneBefore: Int
    public var written: Int
    public var removed: Int
    /// Lines refused, all counted.
    public var refused: Int
    /// The first 1,000 lines refused, in line order.
    public var refusals: [Refusal]

    init(_ wire: Components.Schemas.IngestReport) {
        batchID = wire.batchID
        lines = Int(wire.lines)
        linesDone = Int(wire.linesDone)
        linesDoneBefore = Int(wire.linesDoneBefore)
        written = Int(wire.written)
        removed = Int(wire.removed)
        refused = Int(wire.refused)
        refusals = wire.refusals.map {
            Refusal(line: Int($0.line), id: $0.id, code: $0.code, message: $0.message)
        }
    }
}

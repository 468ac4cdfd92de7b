import GangwayProtocol

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
    /// The caller's digest of the batch's lines through ``linesDone`` (``IngestPart``);
    /// `nil` before the first part.
    public var digest: String?

    /// How many refusals a batch keeps to report; the rest are counted.
    public static let refusalsKept = APILimits.ingestRefusals.upperBound

    public init(
        linesDone: Int = 0,
        written: Int = 0,
        removed: Int = 0,
        refusedCount: Int = 0,
        refused: [IngestRefusal] = [],
        digest: String? = nil
    ) {
        self.linesDone = linesDone
        self.written = written
        self.removed = removed
        self.refusedCount = refusedCount
        self.refused = refused
        self.digest = digest
    }
}

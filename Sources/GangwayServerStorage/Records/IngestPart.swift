/// One part of an ingest batch, as the server read it off the caller's stream: the rows
/// of lines `after + 1` through `through`, and the lines already refused as unreadable.
///
/// A batch is identified by its caller's ID and checked by its content: `digest` is the
/// caller's digest of the batch's lines from the first through `through` (the server's
/// ingest route takes SHA-256 of their bytes), and `digestBefore` the same through
/// `after`. A part applies only on top of the batch as it stands when it was read (lines
/// done `after`, with that digest), so a batch ID sent again with other rows, or by two
/// senders at once, is refused rather than mixed.
public struct IngestPart: Sendable, Hashable {
    /// The lines of the batch before this part.
    public var after: Int
    /// The digest of the batch's lines through `after`; `nil` when `after` is 0.
    public var digestBefore: String?
    /// The rows to apply, in line order, each of a line in `after + 1 ... through`.
    public var rows: [IngestRow]
    /// Lines of the part refused before they could be rows (not JSON, no ID, …), kept
    /// with the batch's other refusals.
    public var unreadable: [IngestRefusal]
    /// The part's last line: a blank line at the end counts too.
    public var through: Int
    /// The digest of the batch's lines through `through`.
    public var digest: String

    public init(
        after: Int,
        digestBefore: String?,
        rows: [IngestRow],
        unreadable: [IngestRefusal] = [],
        through: Int,
        digest: String
    ) {
        self.after = after
        self.digestBefore = digestBefore
        self.rows = rows
        self.unreadable = unreadable
        self.through = through
        self.digest = digest
    }
}

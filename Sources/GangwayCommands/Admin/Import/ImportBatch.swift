import GangwayAdmin

/// One request's worth of an imported file: NDJSON lines the server ingests as one batch
/// (`ingestAppData`), with the rows the command refused itself.
///
/// Each row of the file is one line of the batch, in order: a row refused before sending
/// (too long, a CSV row of the wrong length) is sent as a blank line, which the server
/// counts and skips, so the batch's line `n` is always the file's row `firstRow + n - 1`.
struct ImportBatch {
    /// The batch's NDJSON, LF-ended lines.
    var body: [UInt8] = []
    /// Lines in `body`.
    var lines = 0
    /// The file's row of the batch's first line (a CSV's header is row 1).
    var firstRow: Int
    /// Rows refused before sending, by the batch's line.
    var refusals: [IngestReport.Refusal] = []
    /// The file's bytes read through this batch, for the progress shown.
    var bytesThrough = 0

    init(firstRow: Int) {
        self.firstRow = firstRow
    }

    /// Adds a line whose bytes are NDJSON already.
    mutating func add(line bytes: some Sequence<UInt8>) {
        body.append(contentsOf: bytes)
        body.append(UInt8(ascii: "\n"))
        lines += 1
    }

    /// Adds a row the command refuses: a blank line, and the refusal.
    mutating func refuse(code: String, _ message: String) {
        body.append(UInt8(ascii: "\n"))
        lines += 1
        refusals.append(.init(line: lines, code: code, message: message))
    }
}

/// A file the import reads a batch at a time, never whole.
protocol ImportSource {
    /// The next batch of at most `lines` rows; `nil` at the end of the file.
    mutating func next(lines: Int) throws -> ImportBatch?
}

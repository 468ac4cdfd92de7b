import GangwayTerminal

/// An import's progress on standard error: a bar redrawn after each batch on a terminal,
/// a line a batch elsewhere (a log, a pipe), so standard output holds only the summary.
struct ImportProgress {
    /// Width of the bar, in characters.
    static let width = 30

    func show(_ summary: ImportSummary) {
        let rows = "\(ImportSummary.count(summary.rows)) rows, \(ImportSummary.count(summary.refused)) refused"
        guard Console.showsProgress else {
            Console.standardError("batch \(summary.batches): \(rows)")
            return
        }
        guard summary.fileSize > 0, summary.bytesRead > 0 else {
            Console.progress(rows)
            return
        }
        let fraction = min(1, Double(summary.bytesRead) / Double(summary.fileSize))
        let filled = Int(fraction * Double(Self.width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: Self.width - filled)
        Console.progress("[\(bar)] \(Int(fraction * 100))%  \(rows)")
    }

    func end() {
        Console.progress(nil)
    }
}

import Foundation
import GangwayAdmin
import GangwayProtocol

/// What an import did, batch by batch: rows, what they wrote and removed, and the rows
/// refused, by the file's row.
struct ImportSummary {
    /// A refused row of the file.
    struct Refusal {
        var row: Int
        var id: String?
        var code: String
        var message: String
    }

    let file: String
    let entitySet: String
    let fileSize: Int
    private let started = ContinuousClock.now
    private(set) var batches = 0
    private(set) var rows = 0
    /// Rows an earlier run of the same batches had sent: written then, not now.
    private(set) var doneBefore = 0
    private(set) var written = 0
    private(set) var removed = 0
    private(set) var refused = 0
    private(set) var refusals: [Refusal] = []
    private(set) var bytesRead = 0

    /// Refused rows kept for the summary, as many as a batch reports; the rest are
    /// counted.
    static let refusalsKept = APILimits.ingestRefusals.upperBound

    init(file: String, entitySet: String, fileSize: Int) {
        self.file = file
        self.entitySet = entitySet
        self.fileSize = fileSize
    }

    /// Adds a batch's report: the server's refusals and the command's own, by row.
    mutating func add(_ report: IngestReport, of batch: ImportBatch) {
        batches += 1
        rows += batch.lines
        doneBefore += report.linesDoneBefore
        written += report.written
        removed += report.removed
        refused += report.refused + batch.refusals.count
        bytesRead = batch.bytesThrough
        var listed = batch.refusals + report.refusals
        listed.sort { $0.line < $1.line }
        refusals += listed.prefix(max(0, Self.refusalsKept - refusals.count)).map {
            Refusal(row: batch.firstRow + $0.line - 1, id: $0.id, code: $0.code, message: $0.message)
        }
    }

    var seconds: Double {
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The summary, with the first `listing` refused rows.
    func text(listing: Int) -> String {
        let perSecond = seconds > 0 ? " (\(Self.count(Int(Double(rows) / seconds))) rows/s)" : ""
        let before = doneBefore > 0 ? " (\(Self.count(doneBefore)) sent by an earlier run, written once)" : ""
        var lines = [
            "\(file) into \(entitySet): \(Self.count(rows)) \(rows == 1 ? "row" : "rows") in \(batches) "
                + "\(batches == 1 ? "batch" : "batches")\(before), "
                + "\(Self.count(written)) written, \(Self.count(removed)) removed, \(Self.count(refused)) refused, in "
                + String(format: "%.1f", seconds) + " s" + perSecond + "."
        ]
        for refusal in refusals.prefix(listing) {
            let id = refusal.id.map { " \($0)" } ?? ""
            lines.append("  row \(refusal.row)\(id): \(refusal.code): \(refusal.message)")
        }
        if refused > min(listing, refusals.count) {
            lines.append("  and \(Self.count(refused - min(listing, refusals.count))) more refused rows.")
        }
        return lines.joined(separator: "\n")
    }

    /// `value` with its thousands set apart by commas: 1,000,000.
    static func count(_ value: Int) -> String {
        var digits = String(value.magnitude)
        var index = digits.endIndex
        while digits.distance(from: digits.startIndex, to: index) > 3 {
            index = digits.index(index, offsetBy: -3)
            digits.insert(",", at: index)
        }
        return (value < 0 ? "-" : "") + digits
    }
}

import CSV
import Foundation
import GangwayProtocol

/// A CSV file (RFC 4180: comma-separated, fields quoted with `"` where they hold a comma,
/// a quote or a line break) whose header names an `id` column and the fields: each row
/// is an entity, put with the fields of its cells that are not empty (an empty cell
/// leaves its field out, as a spreadsheet's empty cell holds nothing). A blank row is
/// skipped; a row of another number of cells than the header is refused.
struct CSVImportSource: ImportSource {
    private let reader: CSVReader
    private let stream: InputStream
    /// The header's columns: `nil` for `id`'s.
    private let columns: [String?]
    private let idColumn: Int
    /// The rows read so far, the header's included.
    private var rows = 1

    /// Reads the header of the CSV at `path`, and checks it.
    init(path: String) throws {
        guard let stream = InputStream(fileAtPath: path) else {
            throw CommandFailure("cannot read \(path).")
        }
        self.stream = stream
        do {
            reader = try CSVReader(stream: stream, hasHeaderRow: true)
        } catch {
            throw CommandFailure("\(path) has no header row (id, then the field names).")
        }
        var header = reader.headerRow ?? []
        // A spreadsheet's UTF-8 byte order mark is no part of the first name.
        if let first = header.first, first.hasPrefix("\u{FEFF}") { header[0] = String(first.dropFirst()) }
        guard let idColumn = header.firstIndex(of: "id") else {
            throw CommandFailure("\(path)'s header has no column 'id', the entities' IDs.")
        }
        self.idColumn = idColumn
        var seen: Set<String> = []
        for name in header {
            guard seen.insert(name).inserted else {
                throw CommandFailure("\(path)'s header names the column '\(TextRules.shown(name, limit: 64))' twice.")
            }
            guard name == "id" || EntityLimits.isFieldName(name) else {
                throw CommandFailure(
                    "\(path)'s header has '\(TextRules.shown(name, limit: 64))', which is not a field name (a letter, then letters, digits and '_')."
                )
            }
        }
        columns = header.map { $0 == "id" ? nil : $0 }
    }

    mutating func next(lines: Int) throws -> ImportBatch? {
        var batch = ImportBatch(firstRow: rows + 1)
        while batch.lines < lines, let row = reader.next() {
            rows += 1
            if row == [""] {
                batch.add(line: [])
                continue
            }
            guard row.count == columns.count else {
                batch.refuse(
                    code: "INVALID_LINE",
                    "The row has \(row.count) cells where the header has \(columns.count)."
                )
                continue
            }
            var line: [UInt8] = []
            line.append(contentsOf: #"{"id":"#.utf8)
            JSONBytes.string(row[idColumn], into: &line)
            line.append(contentsOf: #","fields":{"#.utf8)
            var first = true
            for (name, value) in zip(columns, row) where !value.isEmpty {
                guard let name else { continue }
                if !first { line.append(UInt8(ascii: ",")) }
                first = false
                JSONBytes.string(name, into: &line)
                line.append(UInt8(ascii: ":"))
                JSONBytes.string(value, into: &line)
            }
            line.append(contentsOf: "}}".utf8)
            batch.add(line: line)
        }
        // At the end of a file, Foundation's stream on Linux says it has bytes still, and
        // the reader's last read finds none: that is the end, not an error.
        if let error = reader.error, !(Self.isEnd(error) && stream.streamStatus == .atEnd) {
            throw CommandFailure("the CSV could not be read past row \(rows): \(Self.describe(error)).")
        }
        batch.bytesThrough = (stream.property(forKey: .fileCurrentOffsetKey) as? NSNumber)?.intValue ?? 0
        return batch.lines == 0 ? nil : batch
    }

    private static func isEnd(_ error: any Error) -> Bool {
        if case .cannotReadFile? = error as? CSVError { return true }
        return false
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? CSVError {
        case .unicodeDecoding?: "it is not UTF-8"
        default: "it is not readable"
        }
    }
}

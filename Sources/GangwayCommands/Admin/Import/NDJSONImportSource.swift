import Foundation
import GangwayProtocol

/// An NDJSON file, one entity a line (`{"id": …, "fields": {…}}` or
/// `{"id": …, "remove": true}`), sent as it is: the server reads and judges each line.
/// Only a line past ``GangwayProtocol/EntityLimits/ingestLineBytes`` is refused here,
/// since neither side holds it.
struct NDJSONImportSource: ImportSource {
    private let file: FileHandle
    private var reader = NDJSONReader(maximumLineLength: EntityLimits.ingestLineBytes)
    /// Read from the file and not cut into lines yet, from `offset`.
    private var chunk: [UInt8] = []
    private var offset = 0
    private var ended = false

    /// The size of each read of the file.
    static let readSize = 1 << 20

    init(file: FileHandle) {
        self.file = file
    }

    mutating func next(lines: Int) throws -> ImportBatch? {
        var batch = ImportBatch(firstRow: reader.lines + 1)
        func add(_ line: NDJSONReader.Line) {
            switch line {
            case .text(let bytes): batch.add(line: bytes)
            case .tooLong:
                batch.refuse(code: "INVALID_LINE", "The line is longer than \(EntityLimits.ingestLineBytes) bytes.")
            }
        }
        while batch.lines < lines {
            if offset == chunk.count {
                guard !ended else { break }
                let read: Data?
                do {
                    read = try file.read(upToCount: Self.readSize)
                } catch {
                    throw CommandFailure("the file could not be read past row \(reader.lines).")
                }
                guard let data = read, !data.isEmpty else {
                    ended = true
                    reader.finish { _, line in add(line) }
                    break
                }
                chunk = Array(data)
                offset = 0
            }
            let wanted = lines - batch.lines
            var taken = 0
            offset = chunk.withUnsafeBytes { bytes in
                reader.read(bytes, from: offset) { _, line in
                    add(line)
                    taken += 1
                    return taken < wanted
                }
            }
        }
        batch.bytesThrough = reader.bytesRead
        return batch.lines == 0 ? nil : batch
    }
}

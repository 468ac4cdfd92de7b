extension SQL {
    /// What a statement does, for a span's name: its first keyword and the table it
    /// works on, such as `SELECT users` or `INSERT INTO entities` (OpenTelemetry's
    /// `db.query.summary`). Read from the statement's text, never its values.
    public struct Summary: Sendable, Hashable, CustomStringConvertible {
        /// `SELECT`, `INSERT`, `UPDATE`, `DELETE`, `WITH`, or whatever keyword begins it.
        public var operation: String
        /// The table after `FROM`, `INTO` or `UPDATE`, when it names one.
        public var table: String?

        public var description: String { table.map { "\(operation) \($0)" } ?? operation }
    }

    /// The longest prefix of its text read for a summary.
    private static let summaryPrefix = 400

    /// What the statement does (``Summary``). Read from the statement's bytes, with no
    /// string made but the summary's own: it runs for every statement of a traced request.
    public var summary: Summary {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.summaryPrefix)
        for part in parts {
            guard bytes.count < Self.summaryPrefix else { break }
            switch part {
            case .text(let fragment): bytes.append(contentsOf: fragment.utf8)
            case .value: bytes.append(contentsOf: [0x20, 0x3F, 0x20])  // " ? "
            }
        }
        return bytes.withUnsafeBufferPointer { Self.summary(of: $0) }
    }

    /// The summary of a statement's text: its first word, and the word after the
    /// operation's `FROM`, `INTO` or `UPDATE` when that word is a table's name.
    private static func summary(of text: UnsafeBufferPointer<UInt8>) -> Summary {
        var words = Words(text: text)
        guard let first = words.next() else { return Summary(operation: "SQL") }
        let operation = String(decoding: first, as: UTF8.self).uppercased()
        let keyword: String? =
            switch operation {
            case "SELECT", "DELETE": "FROM"
            case "INSERT", "REPLACE": "INTO"
            case "UPDATE": "UPDATE"
            default: nil
            }
        guard let keyword else { return Summary(operation: operation) }
        let wanted = Array(keyword.utf8)
        // UPDATE's table is the word after the first.
        var found = operation == "UPDATE"
        while !found, let word = words.next() {
            found = word.count == wanted.count && zip(word, wanted).allSatisfy { Self.uppercased($0) == $1 }
        }
        guard found, let name = words.next() else { return Summary(operation: operation) }
        let unquoted = name.filter { $0 != UInt8(ascii: "\"") }
        // A subquery or a function is not a table.
        guard let start = unquoted.first, Self.isLetter(start) || start == UInt8(ascii: "_"),
            !unquoted.contains(UInt8(ascii: "("))
        else {
            return Summary(operation: operation)
        }
        return Summary(operation: operation, table: String(decoding: unquoted, as: UTF8.self))
    }

    /// The words of a statement: runs of letters, digits and `_ . " (`.
    private struct Words {
        let text: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func next() -> UnsafeBufferPointer<UInt8>.SubSequence? {
            while index < text.count, !SQL.isWordByte(text[index]) { index += 1 }
            guard index < text.count else { return nil }
            let start = index
            while index < text.count, SQL.isWordByte(text[index]) { index += 1 }
            return text[start..<index]
        }
    }

    /// A letter: ASCII, or a byte of a character beyond it (SQL's keywords and Gangway's
    /// tables are ASCII; a name of another script stays one word).
    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte >= 0x80
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "(")
    }

    private static func uppercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
    }
}

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

    /// What the statement does (``Summary``).
    public var summary: Summary {
        var text = ""
        for part in parts {
            guard text.utf8.count < Self.summaryPrefix else { break }
            switch part {
            case .text(let fragment): text += fragment
            case .value: text += " ? "
            }
        }
        let words = text.split(whereSeparator: { !($0.isLetter || $0.isNumber || "_.\"(".contains($0)) })
        guard let first = words.first?.uppercased() else { return Summary(operation: "SQL") }
        let after: String? =
            switch first {
            case "SELECT": "FROM"
            case "INSERT", "REPLACE": "INTO"
            case "DELETE": "FROM"
            case "UPDATE": "UPDATE"
            default: nil
            }
        guard let after, let index = words.firstIndex(where: { $0.uppercased() == after }),
            words.index(after: index) < words.endIndex
        else { return Summary(operation: first) }
        let name = words[words.index(after: index)].filter { $0 != "\"" }
        // A subquery or a function is not a table.
        guard let start = name.first, start.isLetter || start == "_", !name.contains("(") else {
            return Summary(operation: first)
        }
        return Summary(operation: first, table: String(name))
    }
}

import Foundation

/// The audit as CSV (RFC 4180), the same from `gangway admin audit --format csv` and the
/// console's download: a header, then an event a line, newest first.
///
/// A cell a spreadsheet would read as a formula (starting with `=`, `+`, `-`, `@`, a tab
/// or a carriage return) starts with `'` instead (OWASP's CSV injection): an actor's name
/// or a path is someone's text, never a formula.
public enum AuditExport {
    /// The columns, in order.
    public static let header = ["id", "at", "actor", "via", "action", "target", "address", "detail"]

    /// One event's line: its ID and time, then `fields` (actor, via, action, target,
    /// address, detail: the rest of ``header``, in its order; a missing one is empty).
    public static func line(id: Int64, at date: Date, fields: [String?]) -> String {
        ([String(id), date.formatted(.iso8601)] + fields.map { $0 ?? "" }).map(cell).joined(separator: ",")
    }

    /// The CSV of `lines` (from ``line(id:at:fields:)``), with the header.
    public static func csv(_ lines: [String]) -> String {
        ([header.joined(separator: ",")] + lines).joined(separator: "\n")
    }

    /// The CSV of `events`, with the header, in their order.
    public static func csv(_ events: [Components.Schemas.AuditEvent]) -> String {
        csv(
            events.map {
                line(
                    id: $0.id,
                    at: $0.at,
                    fields: [$0.actor, $0.via.rawValue, $0.action, $0.target, $0.address, $0.detail]
                )
            }
        )
    }

    /// `text` as a CSV cell: quoted when it holds a comma, a quote or a line break.
    public static func cell(_ text: String) -> String {
        var cell = text
        if let first = cell.first, "=+-@\t\r".contains(first) { cell = "'" + cell }
        guard cell.contains(where: { ",\"\n\r".contains($0) }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

import Foundation

/// A time an operator types to filter by (the console's `datetime-local` fields,
/// `gangway admin logs --since`): read as UTC, as the console and the command line both
/// show times.
public enum UTCTime {
    /// `2026-11-26`, `2026-11-26T08:00`, `2026-11-26T08:00:30`, each with or without a
    /// trailing `Z`; `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        var text = text.hasSuffix("Z") ? String(text.dropLast()) : text
        switch text.count {
        case 10: text += "T00:00:00"
        case 16: text += ":00"
        case 19: break
        default: return nil
        }
        return try? Date(text + "Z", strategy: .iso8601)
    }

    /// What ``parse(_:)`` reads, for a message.
    public static let example = "a date and time such as 2026-11-26T08:00 (UTC)"
}

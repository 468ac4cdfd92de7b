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
        // The parser rolls an hour 25 into the next day: only a time that reads back as
        // typed is one.
        guard let date = try? Date(text + "Z", strategy: .iso8601), date.formatted(.iso8601) == text + "Z" else {
            return nil
        }
        return date
    }

    /// What ``parse(_:)`` reads, for a message.
    public static let example = "a date and time such as 2026-11-26T08:00 (UTC)"
}

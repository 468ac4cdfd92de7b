import Foundation

/// How the terminal app writes a moment, the same in every language: on the 24-hour
/// clock airline crews read ("15:05", never "3:05 PM"), in the device's time zone.
enum TerminalTime {
    /// The time of day: "15:05".
    static func time(_ date: Date, in timeZone: TimeZone = .current) -> String {
        format(date, "HH:mm", timeZone)
    }

    /// The date and the time to the second: "2026-12-02 15:05:09".
    static func dateAndTime(_ date: Date, in timeZone: TimeZone = .current) -> String {
        format(date, "yyyy-MM-dd HH:mm:ss", timeZone)
    }

    /// `date` in the fixed `pattern`: the POSIX locale keeps a person's 12-hour setting
    /// and their calendar out of it.
    private static func format(_ date: Date, _ pattern: String, _ timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.timeZone = timeZone
        formatter.dateFormat = pattern
        return formatter.string(from: date)
    }
}

import Foundation
import GangwaySystem

/// The shift's notes from the crew backend, one line each: the time on the 24-hour clock
/// and who wrote it, then the note, which starts at the same terminal column in every
/// line whatever the names' widths and the language.
enum CrewNotesText {
    /// "15:05 Alice Martin: stand 14 tyre gauge is with the night crew", the notes after
    /// shorter names padded to the same column.
    static func lines(_ notes: [CrewAPI.Note], in timeZone: TimeZone = .current) -> [String] {
        let authors = notes.map { localized("crew.noteBy", TerminalTime.time($0.at, in: timeZone), $0.name) }
        let width = authors.map { TerminalColumns.width(of: $0) }.max() ?? 0
        return zip(authors, notes).map { author, note in TerminalColumns.padded(author, to: width) + " " + note.text }
    }
}

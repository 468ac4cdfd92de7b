import Foundation

/// The demo airline's crew backend as its clients see it (GangwayDemo runs it): reached
/// through the demo app's destination `crew`, as the signed-in person.
///
/// - `GET /roster`: who it sees, their shift, and the shift's notes (``Roster``).
/// - `POST /notes` (the note's text as the body, at most ``noteLimit`` characters): a note
///   by the signed-in person, for the next shift.
public enum CrewAPI {
    /// The demo app's destination for it.
    public static let destination = "crew"
    /// The most characters a note may have.
    public static let noteLimit = 280

    /// A note for the next shift: who wrote it (user name and name), what, and when.
    public struct Note: Codable, Sendable {
        public var by: String
        public var name: String
        public var text: String
        public var at: Date

        public init(by: String, name: String, text: String, at: Date) {
            self.by = by
            self.name = name
            self.text = text
            self.at = at
        }
    }

    /// Who the backend sees, their shift and stands (none when they have no shift
    /// today), and the notes.
    public struct Roster: Codable, Sendable {
        public var user: String
        public var name: String
        public var shift: String?
        public var stands: [String]
        public var notes: [Note]

        public init(user: String, name: String, shift: String?, stands: [String], notes: [Note]) {
            self.user = user
            self.name = name
            self.shift = shift
            self.stands = stands
            self.notes = notes
        }
    }
}

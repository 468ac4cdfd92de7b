/// What text the server stores and devices send may hold: one rule for names and values,
/// shared by the server's checks and the device's.
public enum TextRules {
    /// Whether `value` holds a control character.
    public static func hasControlCharacters(_ value: String) -> Bool {
        value.unicodeScalars.contains(where: isControl)
    }

    /// The C0 and C1 controls (U+0000–U+001F, U+007F–U+009F), and the bidirectional
    /// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which make a
    /// name shown to an admin or a user read as something else (`U+202E` turns
    /// `evil\u{202E}gpj.exe` into `evilexe.jpg`).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

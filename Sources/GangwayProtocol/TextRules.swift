/// What text the server stores and devices send may hold: one rule for names and values,
/// shared by the server's checks and the device's, and one way to show text from elsewhere
/// on a terminal.
public enum TextRules {
    /// Whether `value` holds a control character.
    public static func hasControlCharacters(_ value: String) -> Bool {
        value.unicodeScalars.contains(where: isControl)
    }

    /// The C0 and C1 controls (U+0000–U+001F, U+007F–U+009F); the bidirectional marks,
    /// embeddings, overrides and isolates (U+061C, U+200E–U+200F, U+202A–U+202E,
    /// U+2066–U+2069), which make a name shown to an admin or a user read as something
    /// else (`U+202E` turns `evil\u{202E}gpj.exe` into `evilexe.jpg`); and the invisible
    /// ones that make two names look the same (U+00AD soft hyphen, U+180E, U+200B zero
    /// width space, U+2028–U+2029 line and paragraph separators, U+2060–U+2064, U+FEFF,
    /// U+FFF9–U+FFFB). The zero-width joiner and non-joiner (U+200C–U+200D) are letters'
    /// business in Persian, Indic scripts and emoji, and stay allowed.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0xAD, 0x061C, 0x180E, 0x200B, 0x200E...0x200F, 0x2028...0x202E,
            0x2060...0x2064, 0x2066...0x2069, 0xFEFF, 0xFFF9...0xFFFB:
            true
        default: false
        }
    }

    /// Whether `text` is blank: nothing but the white space of the API document's
    /// patterns (ECMAScript's `\s`), so a name the document calls blank is refused and no
    /// other.
    public static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
                true
            default: false
            }
        }
    }

    /// What is wrong with `value`'s length, or `nil`: it counts Unicode code points, as
    /// JSON Schema's `minLength` and `maxLength` do.
    public static func lengthProblem(_ value: String, _ range: ClosedRange<Int>) -> String? {
        range.contains(value.unicodeScalars.count)
            ? nil : "must be \(range.lowerBound) to \(range.upperBound) characters long"
    }

    /// What is wrong with a label, or `nil`: ``lengthProblem(_:_:)``, then control
    /// characters (``hasControlCharacters(_:)``).
    public static func textProblem(_ value: String, _ range: ClosedRange<Int>) -> String? {
        // Printable ASCII, the common case (an ingest checks millions of values), in one
        // pass over its bytes: a character each, and none a control.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return range.contains(value.utf8.count) ? nil : lengthProblem(value, range)
        }
        if let problem = lengthProblem(value, range) { return problem }
        return hasControlCharacters(value)
            ? "must not contain control characters, invisible characters or text-direction overrides" : nil
    }

    /// What is wrong with a name a person reads (an app's, a user's display name), or
    /// `nil`: ``textProblem(_:_:)`` within ``APILimits/name``, and not ``isBlank(_:)``.
    /// The server refuses by it, and the admin client checks by it first.
    public static func nameProblem(_ value: String) -> String? {
        textProblem(value, APILimits.name) ?? (isBlank(value) ? "must not be blank" : nil)
    }

    /// Someone else's text for a message: its first `limit` characters on one line, its
    /// controls written out (``escapingControls(_:keepingLines:)``), so a name or key a
    /// client sent can be quoted back without moving the cursor or running on.
    public static func shown(_ text: some StringProtocol, limit: Int) -> String {
        escapingControls(String(text.prefix(limit)), keepingLines: false)
    }

    /// `text` with each control character (``isControl(_:)``) written out as `\u{1B}`, so
    /// text that came from a device, a server or a provider shows on a terminal as what
    /// it holds and never moves the cursor, clears the screen, sets the title or reorders
    /// what follows. Tab and newline stay when `keepingLines` is set.
    public static func escapingControls(_ text: String, keepingLines: Bool = true) -> String {
        escaping(text, keepingLines: keepingLines, backslashes: false)
    }

    /// `text` on one line that reads back as exactly what it holds: each control written
    /// out as by ``escapingControls(_:keepingLines:)``, and each backslash doubled, so a
    /// key holding the six characters `\u{1B}` never looks like a key holding the escape
    /// character. For listings a person compares or copies from (stored keys, table cells).
    public static func unambiguous(_ text: String) -> String {
        escaping(text, keepingLines: false, backslashes: true)
    }

    private static func escaping(_ text: String, keepingLines: Bool, backslashes: Bool) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || (backslashes && $0 == "\\") }) else {
            return text
        }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar), !(keepingLines && (scalar == "\n" || scalar == "\t")) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else if backslashes, scalar == "\\" {
                escaped.append(contentsOf: #"\\"#.unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}

extension Unicode.Scalar {
    /// A letter or digit of ASCII: what identifiers and tokens are made of.
    public var isASCIIAlphanumeric: Bool {
        isASCIILetter || ("0"..."9").contains(self)
    }

    /// A letter of ASCII.
    public var isASCIILetter: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self)
    }
}

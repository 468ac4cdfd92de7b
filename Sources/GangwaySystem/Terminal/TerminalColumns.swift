/// How many columns text takes on a terminal, so tables line up whatever their text.
///
/// A `Character` is not a column: a CJK ideograph, a Hangul syllable, a full-width form
/// or an emoji takes two, a combining mark or a zero-width character none, and
/// Foundation's `padding(toLength:)` counts UTF-16 units (and cuts what is longer).
/// The wide ranges are those Unicode's East Asian Width gives as Wide or Fullwidth.
public enum TerminalColumns {
    /// The columns `text` takes on a terminal.
    public static func width(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` followed by spaces up to `width` columns; text as wide or wider is returned
    /// whole, never cut.
    public static func padded(_ text: String, to width: Int) -> String {
        let missing = width - Self.width(of: text)
        return missing > 0 ? text + String(repeating: " ", count: missing) : text
    }

    /// The columns one character takes: 2 for a wide one or an emoji, 0 for one that
    /// draws nothing of its own, otherwise 1.
    static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // An emoji: one shown as such by default, or made so by a variation selector or a
        // joiner (a joiner in Indic text, after a letter, makes no emoji).
        if first.properties.isEmojiPresentation
            || first.properties.isEmoji && first.value > 0x7F
                && scalars.contains(where: { $0.value == 0xFE0F || $0.value == 0x200D })
        {
            return 2
        }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .control: return 0
        // A soft hyphen is drawn; the other format characters are not.
        case .format: return first.value == 0xAD ? 1 : 0
        default: break
        }
        return wide.contains { $0.contains(first.value) } ? 2 : 1
    }

    /// The blocks Unicode's East Asian Width gives as Wide or Fullwidth.
    private static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F,  // Hangul Jamo initial consonants
        0x2E80...0x303E,  // CJK radicals, Kangxi, ideographic description, CJK symbols
        0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility, CJK compatibility
        0x3400...0x4DBF,  // CJK extension A
        0x4E00...0x9FFF,  // CJK unified ideographs
        0xA000...0xA4CF,  // Yi
        0xA960...0xA97F,  // Hangul Jamo extended A
        0xAC00...0xD7A3,  // Hangul syllables
        0xF900...0xFAFF,  // CJK compatibility ideographs
        0xFE10...0xFE19,  // vertical forms
        0xFE30...0xFE6F,  // CJK compatibility forms, small form variants
        0xFF00...0xFF60,  // full-width forms
        0xFFE0...0xFFE6,  // full-width signs
        0x1F300...0x1F64F,  // pictographs and emoticons
        0x1F900...0x1F9FF,  // supplemental symbols and pictographs
        0x16FE0...0x18AFF,  // ideographic symbols, Tangut
        0x1B000...0x1B16F,  // Kana supplement and extended A
        0x20000...0x3FFFD,  // CJK extensions B and beyond
    ]
}

import GangwaySystem
import Testing

@Suite("Text takes the columns a terminal gives it")
struct TerminalColumnsTests {
    @Test(arguments: [
        ("plain", 5),
        ("Zoë", 3),
        ("Zoe\u{0308}", 3),  // a combining diaeresis takes no column of its own
        ("東京", 4),
        ("한국", 4),
        ("ＡＢ", 4),  // full-width forms
        ("👩‍✈️", 2),  // one emoji of four scalars
        ("✈️", 2),  // a text symbol shown as an emoji
        ("a\u{200B}b", 2),  // a zero-width space
        ("co\u{00AD}op", 5),  // a soft hyphen is drawn
        ("क्\u{200D}", 1),  // a joiner after a Devanagari letter makes no emoji
        ("", 0),
    ])
    func widthCountsColumns(text: String, columns: Int) {
        #expect(TerminalColumns.width(of: text) == columns)
    }

    @Test func paddingFillsToTheColumnsAndNeverCuts() {
        #expect(TerminalColumns.padded("東京", to: 6) == "東京  ")
        #expect(TerminalColumns.padded("👩‍✈️ Zoë", to: 3) == "👩‍✈️ Zoë")
        #expect(TerminalColumns.padded("ab", to: 2) == "ab")
        #expect(TerminalColumns.padded("", to: 2) == "  ")
    }
}

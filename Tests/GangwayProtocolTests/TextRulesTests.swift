import GangwayProtocol
import Testing

@Suite("Text rules: one rule for names and values, and text from elsewhere shown escaped")
struct TextRulesTests {
    @Test(
        "controls, bidirectional marks and invisible characters are refused in names",
        arguments: [
            "\u{0}", "\u{7}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}", "\u{AD}", "\u{061C}", "\u{180E}", "\u{200B}",
            "\u{200E}", "\u{200F}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{202E}", "\u{2060}", "\u{2066}",
            "\u{2069}", "\u{FEFF}", "\u{FFF9}",
        ]
    )
    func refused(character: String) {
        #expect(TextRules.hasControlCharacters("Alice" + character + "Martin"))
    }

    @Test(
        "letters of every script, joiners in Persian and emoji, and ordinary punctuation pass",
        arguments: ["Alice Martin", "Zoë O'Brien-Łukasz", "می‌خواهم", "👩‍✈️ Pilot", "李小龍", "a.b_c@d-e"]
    )
    func allowed(name: String) {
        #expect(!TextRules.hasControlCharacters(name))
    }

    @Test("escaped for a terminal: every control written out, tab and newline kept unless asked")
    func escaping() {
        let hostile = "title\u{1B}]0;pwned\u{7}\u{1B}[2J\u{9B}1A\u{202E}gpj.exe\tnext\nline\r"
        let shown = TextRules.escapingControls(hostile)
        #expect(shown == #"title\u{1B}]0;pwned\u{7}\u{1B}[2J\u{9B}1A\u{202E}gpj.exe"# + "\tnext\nline" + #"\u{D}"#)
        #expect(!shown.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" || $0 == "\u{202E}" })
        #expect(TextRules.escapingControls("a\tb\nc", keepingLines: false) == #"a\u{9}b\u{A}c"#)
        #expect(TextRules.escapingControls("plain text, ünïcödé") == "plain text, ünïcödé")
    }

    @Test("unambiguous: a backslash doubled as well, so written-out text never looks like a control")
    func unambiguous() {
        #expect(TextRules.unambiguous("a\u{1B}b") == #"a\u{1B}b"#)
        #expect(TextRules.unambiguous(#"a\u{1B}b"#) == #"a\\u{1B}b"#)
        #expect(TextRules.unambiguous("tab\there\\") == #"tab\u{9}here\\"#)
        #expect(TextRules.unambiguous("plain") == "plain")
        #expect(TextRules.escapingControls(#"a\b"#) == #"a\b"#, "only the listings double a backslash")
    }

    @Test("someone's text quoted in a message: cut to the limit, on one line, its controls written out")
    func shown() {
        #expect(TextRules.shown("abc\ndef\u{1B}[2J", limit: 5) == #"abc\u{A}d"#)
        #expect(TextRules.shown("short", limit: 64) == "short")
    }

    @Test(
        "blank is what the document's patterns call blank: ECMAScript's white space, nothing else",
        arguments: [
            ("", true), (" ", true), ("\t \u{A0}\u{3000}", true), ("\u{2003}\u{FEFF}", true), (" a ", false),
            ("\u{200B}", false), ("\u{85}", false), ("·", false),
        ]
    )
    func blank(text: String, isBlank: Bool) {
        #expect(TextRules.isBlank(text) == isBlank)
    }
}

import Testing

@testable import GangwayTerminal

/// The home prompt's line editing, as a value: keys in, the line and its cursor out.
@Suite("The command line's editing: keys decoded from a terminal's bytes, and what each does")
struct LineEditorTests {
    /// The keys `bytes` hold, in order.
    static func keys(_ bytes: [UInt8]) -> [LineEditor.Key] {
        var pending: [UInt8] = []
        var keys: [LineEditor.Key] = []
        for byte in bytes {
            pending.append(byte)
            while let key = LineEditor.key(from: &pending) { keys.append(key) }
        }
        return keys
    }

    @Test("arrows, Home, End and Delete as terminals send them; a character of several bytes once whole")
    func decoding() {
        #expect(Self.keys(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(
            Self.keys(Array("\u{1B}OH\u{1B}OF\u{1B}[1~\u{1B}[4~\u{1B}[3~".utf8)) == [.home, .end, .home, .end, .delete]
        )
        #expect(Self.keys(Array("é".utf8)) == [.character("é")])
        #expect(Self.keys([0xFF, UInt8(ascii: "a")]) == [.ignored, .character("a")], "a byte that is no UTF-8")
        #expect(
            Self.keys([1, 5, 21, 23, 11, 127, 13, 3, 4]) == [
                .home, .end, .killToStart, .killWord, .killToEnd, .backspace, .enter, .interrupt, .endOfInput,
            ]
        )
        var incomplete: [UInt8] = [27, UInt8(ascii: "[")]
        let none = LineEditor.key(from: &incomplete)
        #expect(none == nil && incomplete.count == 2, "waits for the rest")
    }

    @Test("typing, moving and deleting in the middle; the words and the ends killed")
    func editing() {
        var editor = LineEditor(history: [])
        for key in Self.keys(Array("wait 10".utf8)) { _ = editor.handle(key) }
        _ = editor.handle(.left)
        _ = editor.handle(.left)
        _ = editor.handle(.character("5"))
        #expect(editor.line == "wait 510" && editor.columnsAfterCursor == 2)
        _ = editor.handle(.home)
        _ = editor.handle(.delete)
        #expect(editor.line == "ait 510")
        _ = editor.handle(.end)
        _ = editor.handle(.killWord)
        #expect(editor.line == "ait ")
        _ = editor.handle(.home)
        _ = editor.handle(.killToEnd)
        #expect(editor.line.isEmpty)
        _ = editor.handle(.backspace)
        let ended = editor.handle(.enter)
        #expect(ended, "Enter ends the line")
    }

    @Test("Up and Down walk the history, newest first, and give back the line being typed")
    func history() {
        var editor = LineEditor(history: ["sync", "wait 10"])
        _ = editor.handle(.character("p"))
        _ = editor.handle(.up)
        #expect(editor.line == "wait 10")
        _ = editor.handle(.up)
        _ = editor.handle(.up)
        #expect(editor.line == "sync", "stays at the oldest")
        _ = editor.handle(.down)
        _ = editor.handle(.down)
        #expect(editor.line == "p", "the line being typed comes back")
        _ = editor.handle(.down)
        #expect(editor.line == "p")
    }
}

import GangwaySystem

/// The editing of one command line at a terminal, as a value: the keys a person presses
/// (arrows, Home and End, Backspace and Delete, the readline control keys) and what the
/// line and its cursor become. Up and Down walk the history the prompt gives it, which
/// holds only lines that named a command: never a secret typed at the wrong prompt.
struct LineEditor {
    /// A key, decoded from the bytes a terminal sends.
    enum Key: Equatable {
        case character(Character)
        case left, right, up, down, home, end
        case backspace, delete
        /// Ctrl-U: everything before the cursor goes.
        case killToStart
        /// Ctrl-K: everything from the cursor goes.
        case killToEnd
        /// Ctrl-W: the word before the cursor goes, with the spaces after it.
        case killWord
        case enter
        /// Ctrl-C.
        case interrupt
        /// Ctrl-D.
        case endOfInput
        /// A key that does nothing here.
        case ignored
    }

    private(set) var text: [Character] = []
    private(set) var cursor = 0
    private let history: [String]
    /// Which history line shows: `history.count` for the line being typed.
    private var recalled: Int
    /// The line being typed, kept while the history is walked.
    private var draft: [Character] = []

    init(history: [String]) {
        self.history = history
        recalled = history.count
    }

    var line: String { String(text) }

    /// How many columns the cursor stands before the end of the line.
    var columnsAfterCursor: Int { TerminalColumns.width(of: String(text[cursor...])) }

    /// Applies `key`; whether it ends the line (Enter).
    mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let character):
            text.insert(character, at: cursor)
            cursor += 1
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(text.count, cursor + 1)
        case .home: cursor = 0
        case .end: cursor = text.count
        case .backspace:
            guard cursor > 0 else { break }
            text.remove(at: cursor - 1)
            cursor -= 1
        case .delete:
            if cursor < text.count { text.remove(at: cursor) }
        case .killToStart:
            text.removeSubrange(0..<cursor)
            cursor = 0
        case .killToEnd:
            text.removeSubrange(cursor...)
        case .killWord:
            var start = cursor
            while start > 0, text[start - 1] == " " { start -= 1 }
            while start > 0, text[start - 1] != " " { start -= 1 }
            text.removeSubrange(start..<cursor)
            cursor = start
        case .up:
            guard recalled > 0 else { break }
            if recalled == history.count { draft = text }
            recalled -= 1
            show(Array(history[recalled]))
        case .down:
            guard recalled < history.count else { break }
            recalled += 1
            show(recalled == history.count ? draft : Array(history[recalled]))
        case .enter:
            return true
        case .interrupt, .endOfInput, .ignored:
            break
        }
        return false
    }

    private mutating func show(_ line: [Character]) {
        text = line
        cursor = line.count
    }

    /// The key at the start of `bytes`, which it then drops; `nil` while the bytes are the
    /// start of a key that has not all come (an escape sequence, a character of several
    /// bytes).
    static func key(from bytes: inout [UInt8]) -> Key? {
        guard let first = bytes.first else { return nil }
        func take(_ count: Int, _ key: Key) -> Key {
            bytes.removeFirst(count)
            return key
        }
        switch first {
        case 27:
            guard bytes.count >= 2 else { return nil }
            guard bytes[1] == UInt8(ascii: "[") || bytes[1] == UInt8(ascii: "O") else { return take(2, .ignored) }
            // Parameters, then one final byte.
            guard let end = bytes.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else {
                return bytes.count > 16 ? take(bytes.count, .ignored) : nil
            }
            let parameters = String(decoding: bytes[2..<end], as: UTF8.self)
            let final = Character(Unicode.Scalar(bytes[end]))
            let key: Key =
                switch (final, parameters) {
                case ("A", _): .up
                case ("B", _): .down
                case ("C", _): .right
                case ("D", _): .left
                case ("H", _), ("~", "1"), ("~", "7"): .home
                case ("F", _), ("~", "4"), ("~", "8"): .end
                case ("~", "3"): .delete
                default: .ignored
                }
            return take(end + 1, key)
        case 1: return take(1, .home)
        case 2: return take(1, .left)
        case 3: return take(1, .interrupt)
        case 4: return take(1, .endOfInput)
        case 5: return take(1, .end)
        case 6: return take(1, .right)
        case 8, 127: return take(1, .backspace)
        case 10, 13: return take(1, .enter)
        case 11: return take(1, .killToEnd)
        case 14: return take(1, .down)
        case 16: return take(1, .up)
        case 21: return take(1, .killToStart)
        case 23: return take(1, .killWord)
        case 0..<32: return take(1, .ignored)
        case 0..<0x80: return take(1, .character(Character(Unicode.Scalar(first))))
        default:
            let length =
                switch first {
                case 0xC0..<0xE0: 2
                case 0xE0..<0xF0: 3
                case 0xF0..<0xF8: 4
                default: 1
                }
            guard bytes.count >= length else { return nil }
            guard let text = String(validating: bytes[0..<length], as: UTF8.self), let character = text.first else {
                return take(1, .ignored)
            }
            return take(length, .character(character))
        }
    }
}

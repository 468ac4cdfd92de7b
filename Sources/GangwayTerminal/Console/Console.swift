import Foundation
import GangwayPolicy
import GangwayProtocol
import GangwayScreens
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the app talks with the person: a terminal, or plain lines in and out.
///
/// On a terminal, titles are bold, checklists coloured, and passcodes are typed in raw
/// mode: a dot per key, never the key, with a live checklist redrawn above the prompt.
/// Without a terminal (a pipe, a script, a test) it reads answers a line at a time and
/// writes plain text with no escape codes; a non-secret answer is echoed after its
/// prompt so the transcript reads like the session, a secret never is.
public final class Console: Sendable {
    /// How the console reads and writes.
    public enum Mode: Sendable, Hashable {
        /// A person at a terminal.
        case interactive
        /// Lines in, plain text out.
        case plain
    }

    /// Text styles; plain mode drops them.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case cyan = "36"
    }

    public let mode: Mode
    private let input: InputReader
    private let output: @Sendable (String) -> Void
    /// Where a problem that ends the app goes: standard error, unless the console was
    /// given one place for everything.
    private let problemOutput: @Sendable (String) -> Void
    /// Whether a secret's prompt drops what was typed before it (a command's prompt does,
    /// as `sudo` and `passwd` do; the app, whose answers may be typed ahead, does not).
    private let discardsTypeAhead: Bool
    /// Whether styles are written on a terminal (not where `NO_COLOR` asks otherwise).
    private let colors: Bool
    /// Whether the person answered `quit` at a choice (see ``choose(_:prompt:)``).
    private let quitting = Atomic<Bool>(false)

    /// The answer that leaves the app at any choice or yes-or-no question, in every
    /// language, as the home prompt's `quit` does.
    static let quitWord = "quit"

    /// What the app answers at any choice besides the options (`offline off` at the user
    /// picker): given an answer, the line to show when it took it, `nil` otherwise.
    private let aside = Mutex<(@Sendable (String) -> String?)?>(nil)

    /// Lets the app take `handler`'s answers at every choice: the choice is then asked again.
    func takeAtEveryChoice(_ handler: @escaping @Sendable (String) -> String?) {
        aside.withLock { $0 = handler }
    }

    /// Whether the screen in progress ended because the person typed `quit`: the app
    /// then ends as at the home prompt's `quit`, not as when the input runs out.
    var quitRequested: Bool { quitting.load(ordering: .relaxed) }

    /// - Parameters:
    ///   - mode: Interactive when standard input and output are both terminals that move
    ///     their cursor (not `TERM=dumb`), in colour unless `NO_COLOR` asks otherwise; as
    ///     given, when given.
    ///   - output: Where text goes, problems too; by default standard output, and
    ///     problems (``problem(_:)``) to standard error.
    public convenience init(mode: Mode? = nil, output: (@Sendable (String) -> Void)? = nil) {
        self.init(
            mode: mode
                ?? (Self.isCapableTerminal(STDIN_FILENO) && Self.isCapableTerminal(STDOUT_FILENO)
                    ? .interactive : .plain),
            colors: mode != nil || !Self.noColorAsked,
            output: output ?? { Console.write(Data($0.utf8), to: STDOUT_FILENO) },
            problemOutput: output ?? { Console.write(Data($0.utf8), to: STDERR_FILENO) },
            discardsTypeAhead: false
        )
    }

    private init(
        mode: Mode,
        colors: Bool,
        output: @escaping @Sendable (String) -> Void,
        problemOutput: @escaping @Sendable (String) -> Void,
        discardsTypeAhead: Bool
    ) {
        self.mode = mode
        self.colors = colors
        input = InputReader()
        self.output = output
        self.problemOutput = problemOutput
        self.discardsTypeAhead = discardsTypeAhead
    }

    /// A console for a command's prompts: they go to standard error, so standard output
    /// carries only the command's result; interactive when standard input is a terminal.
    public static func prompting() -> Console {
        Console(
            mode: isCapableTerminal(STDIN_FILENO) ? .interactive : .plain,
            colors: !noColorAsked,
            output: { Console.write(Data($0.utf8), to: STDERR_FILENO) },
            problemOutput: { Console.write(Data($0.utf8), to: STDERR_FILENO) },
            discardsTypeAhead: true
        )
    }

    /// Writes one line to standard output: a command's result, which holds what a server
    /// sent; its control characters are shown escaped (``TextRules/escapingControls(_:keepingLines:)``).
    public static func standardOutput(_ line: String) {
        write(Data((TextRules.escapingControls(line) + "\n").utf8), to: STDOUT_FILENO)
    }

    /// Writes one line to standard error: a command's failure, its control characters
    /// shown escaped.
    public static func standardError(_ line: String) {
        write(Data((TextRules.escapingControls(line) + "\n").utf8), to: STDERR_FILENO)
    }

    /// Whether standard error is a terminal that can redraw a progress line
    /// (``progress(_:)``).
    public static var showsProgress: Bool { isCapableTerminal(STDERR_FILENO) }

    /// Draws `line` over the last progress line on standard error, when it is a terminal
    /// (``showsProgress``); `nil` clears it. Nothing is written elsewhere.
    public static func progress(_ line: String?) {
        guard showsProgress else { return }
        let text = line.map { TextRules.shown($0, limit: 200) } ?? ""
        write(Data("\r\u{1B}[2K\(text)".utf8), to: STDERR_FILENO)
    }

    /// Writes `data` whole to `descriptor`. When the reader of standard output went away
    /// (`gangway … | head`), the process ends quietly, as a command killed by SIGPIPE
    /// does (exit code 141); nothing more is written anywhere. A failing standard error
    /// is ignored.
    public static func write(_ data: Data, to descriptor: Int32) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno != EINTR {
                    if descriptor == STDOUT_FILENO, errno == EPIPE { _exit(128 + SIGPIPE) }
                    return
                }
            }
        }
    }

    var isInteractive: Bool { mode == .interactive }

    /// Whether standard input is a terminal, which shows what is typed unless told not to.
    private var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Writes `text` with its control characters shown escaped: whatever a server, a
    /// device or a provider put in it, it cannot move the cursor, clear the screen or set
    /// the title. Only the console's own styles (``styled(_:_:)``) become escape codes.
    public func write(_ text: String) { output(Self.rendered(text)) }

    /// Writes `text` as ``write(_:)`` does, and a line break.
    public func line(_ text: String = "") { output(Self.rendered(text) + "\n") }

    /// Writes a line that says why the app ends (its input ran out), where problems go.
    public func problem(_ text: String) { problemOutput(Self.rendered(text) + "\n") }

    /// What the console itself does to the terminal: the only escape codes it writes
    /// apart from styles, never with text from elsewhere.
    enum Control {
        /// Back to the start of the line, which is cleared.
        case clearLine
        /// Back to the start of the line, and everything from there down cleared.
        case clearBelow
        /// Up `n` lines.
        case up(Int)
        /// The whole screen cleared, the cursor at the top.
        case clearScreen
    }

    /// Moves the cursor or clears, on a terminal; nothing otherwise.
    func control(_ control: Control) {
        guard isInteractive else { return }
        switch control {
        case .clearLine: output("\r\u{1B}[2K")
        case .clearBelow: output("\r\u{1B}[J")
        case .up(let lines): if lines > 0 { output("\u{1B}[\(lines)A") }
        case .clearScreen: output("\u{1B}[2J\u{1B}[H")
        }
    }

    /// Marks a style's start and end in text; written out as its escape code.
    private static let styleOpen: Unicode.Scalar = "\u{E000}"
    private static let styleClose: Unicode.Scalar = "\u{E001}"

    /// `text` escaped, with the style marks of ``styled(_:_:)`` turned into escape codes:
    /// only those of ``Style`` (and the reset), so a mark in text from elsewhere changes a
    /// colour at most.
    static func rendered(_ text: String) -> String {
        let escaped = TextRules.escapingControls(text)
        guard escaped.unicodeScalars.contains(styleOpen) else { return escaped }
        let codes = Set(["0"] + [Style.bold, .dim, .red, .green, .yellow, .cyan].map(\.rawValue))
        var result = String.UnicodeScalarView()
        var scalars = escaped.unicodeScalars[...]
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            guard scalar == styleOpen, let close = scalars.firstIndex(of: styleClose),
                codes.contains(String(String.UnicodeScalarView(scalars[..<close])))
            else {
                result.append(scalar)
                continue
            }
            result.append(contentsOf: "\u{1B}[".unicodeScalars)
            result.append(contentsOf: scalars[..<close])
            result.append("m")
            scalars = scalars[scalars.index(after: close)...]
        }
        return String(result)
    }

    /// The next line of input as it is, or `nil` at its end: for a command that reads its
    /// answers from standard input.
    /// - Throws: ``PresenterError/unexpectedInput(_:)`` for a line that is not UTF-8
    ///   text, which is read past.
    public func readLine() async throws(PresenterError) -> String? {
        do {
            return try await input.readLine()
        } catch {
            throw PresenterError.unexpectedInput("a line of standard input is not UTF-8 text")
        }
    }

    /// Everything left on standard input: a value piped after the answers.
    public func readToEnd() async -> Data {
        Data(await input.readToEnd())
    }

    /// `text` in `style` on a terminal; as it is otherwise, and where `NO_COLOR` is set
    /// (no-color.org).
    func styled(_ text: String, _ style: Style) -> String {
        isInteractive && colors
            ? "\(Self.styleOpen)\(style.rawValue)\(Self.styleClose)\(text)\(Self.styleOpen)0\(Self.styleClose)" : text
    }

    /// Whether the person asked for no colours: `NO_COLOR` set and not empty.
    private static var noColorAsked: Bool { !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty }

    /// Whether `descriptor` is a terminal that moves its cursor: not one whose `TERM` is
    /// `dumb` (an editor's shell, a serial line), which gets plain lines.
    private static func isCapableTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// A screen's heading.
    func heading(_ title: String) {
        line()
        line(isInteractive && colors ? styled(title, .bold) : "== \(title) ==")
    }

    /// A message about the last input, if any.
    func notice(_ text: String?) {
        if let text, !text.isEmpty { line(styled("! \(text)", .yellow)) }
    }

    /// Clears the terminal; in plain mode, a line saying what happened instead.
    func clear(saying text: String) {
        control(.clearScreen)
        line(styled(text, .dim))
    }

    /// Reads one answer.
    /// - Parameter echoing: Whether a pipe's answer is written out at once; without it,
    ///   the caller writes it (``echo(_:)``) once it knows the answer is not a secret.
    /// - Throws: ``PresenterError/closed`` when the input ended.
    func ask(_ prompt: String, echoing: Bool = true) async throws(PresenterError) -> String {
        write(prompt)
        let answer = try await nextLine()
        if echoing { echo(answer) }
        return answer.trimmingCharacters(in: .whitespaces)
    }

    /// The command lines typed at a terminal's prompt, oldest first, for Up and Down: only
    /// those the caller kept (``remember(_:)``), never a secret typed at the wrong prompt.
    private let history = Mutex<[String]>([])

    /// Keeps `line` for the command prompt's history (the most recent 100).
    func remember(_ line: String) {
        history.withLock { lines in
            guard lines.last != line else { return }
            lines.append(line)
            if lines.count > 100 { lines.removeFirst(lines.count - 100) }
        }
    }

    /// Reads a command line: at a terminal with line editing (the arrows, Home and End,
    /// Delete, the readline control keys) and Up and Down through ``remember(_:)``'s
    /// lines; elsewhere as ``ask(_:echoing:)`` with no echo.
    /// - Throws: ``PresenterError/closed`` when the input ended (Ctrl-D on an empty line).
    func askCommand(_ prompt: String) async throws(PresenterError) -> String {
        guard isInteractive, inputIsTerminal, let raw = RawMode() else { return try await ask(prompt, echoing: false) }
        defer { raw.restore() }
        var editor = LineEditor(history: history.withLock { $0 })
        func draw() {
            output("\r\u{1B}[2K")
            write(prompt)
            output(TextRules.escapingControls(editor.line))
            let back = editor.columnsAfterCursor
            if back > 0 { output("\u{1B}[\(back)D") }
        }
        draw()
        var pending: [UInt8] = []
        while true {
            guard let byte = await input.readByte() else {
                line()
                throw PresenterError.closed("the input ended")
            }
            pending.append(byte)
            // Drawn once a whole key came: not at each byte of an arrow's sequence.
            var handled = false
            while let key = LineEditor.key(from: &pending) {
                handled = true
                switch key {
                case .interrupt:
                    raw.restore()
                    Interruption.stop()
                case .endOfInput where editor.line.isEmpty:
                    line()
                    throw PresenterError.closed("cancelled at the keyboard")
                default:
                    if editor.handle(key) {
                        line()
                        return editor.line.trimmingCharacters(in: .whitespaces)
                    }
                }
            }
            if handled { draw() }
        }
    }

    /// Writes an answer read from a pipe after its prompt, so the transcript reads like
    /// the session; a terminal showed what was typed itself (`--plain`).
    func echo(_ answer: String) {
        if !isInteractive, !inputIsTerminal { line(answer) }
    }

    /// The next line of input.
    /// - Throws: ``PresenterError/closed`` at the end of input.
    /// A line that is not UTF-8 text is said to be so and asked again.
    private func nextLine() async throws(PresenterError) -> String {
        while true {
            let answer: String?
            do {
                answer = try await input.readLine()
            } catch {
                line(localized("console.notText"))
                continue
            }
            guard let answer else {
                line()
                throw PresenterError.closed("the input ended")
            }
            return answer
        }
    }

    /// Reads a secret without showing it. On a terminal, `live` gives lines to show above
    /// the prompt for what is typed so far (a passcode checklist), redrawn at each key.
    /// - Throws: ``PresenterError/closed`` when the input ended or the person pressed
    ///   Ctrl-D; Ctrl-C ends the app (``Interruption``).
    ///
    /// A secret that is the word `quit` asks first whether the person meant to leave (a
    /// passcode may be that word too): leaving is never counted as a wrong passcode.
    public func askSecret(
        _ prompt: String,
        live: ((Secret) -> [String])? = nil
    ) async throws(PresenterError) -> Secret {
        let secret = try await readSecret(prompt, live: live)
        guard secret.value.lowercased() == Self.quitWord else { return secret }
        let leaving: Bool
        do {
            leaving = try await confirm(localized("console.quitInstead"))
        } catch {
            // The input ended at the question: nothing more was to be said, so the app quits.
            try quit()
        }
        if leaving { try quit() }
        return secret
    }

    private func readSecret(
        _ prompt: String,
        live: ((Secret) -> [String])?
    ) async throws(PresenterError) -> Secret {
        guard isInteractive, let raw = RawMode(discardingTypeAhead: discardsTypeAhead) else {
            // Read as a line, but never shown: a terminal (`--plain`) echoes nothing from
            // before the prompt shows.
            let hidden = inputIsTerminal ? RawMode(discardingTypeAhead: discardsTypeAhead, keepingLines: true) : nil
            if let live { for text in live("") { line(text) } }
            write(prompt)
            let answer: String
            do {
                answer = try await nextLine()
                hidden?.restore()
            } catch {
                hidden?.restore()
                throw error
            }
            line()
            return Secret(answer)
        }
        defer { raw.restore() }
        var typed: [UInt8] = []
        var drawn = 0
        func draw() {
            control(.up(drawn))
            control(.clearBelow)
            var text = ""
            let lines = live?(Secret(String(decoding: typed, as: UTF8.self))) ?? []
            for entry in lines { text += entry + "\n" }
            let count = String(decoding: typed, as: UTF8.self).count
            text += prompt + String(repeating: "•", count: count)
            write(text)
            drawn = lines.count
        }
        draw()
        var escape = 0
        while true {
            guard let byte = await input.readByte() else {
                line()
                throw PresenterError.closed("the input ended")
            }
            if escape > 0 {
                // The rest of an arrow or function key: ignored.
                escape = (escape == 1 && byte == UInt8(ascii: "[")) ? 2 : 0
                continue
            }
            switch byte {
            case 10, 13:
                line()
                guard let text = String(validating: typed, as: UTF8.self) else {
                    // A terminal in another encoding: nothing of it is taken.
                    line(localized("console.notText"))
                    typed = []
                    drawn = 0
                    draw()
                    continue
                }
                return Secret(text)
            case 3:
                raw.restore()
                Interruption.stop()
            case 4:
                line()
                throw PresenterError.closed("cancelled at the keyboard")
            case 27:
                escape = 1
            case 8, 127:
                while let last = typed.popLast(), last & 0xC0 == 0x80 {}
                draw()
            case 21:
                // Ctrl-U, as a terminal's line editing: everything typed goes.
                typed.removeAll()
                draw()
            case 23:
                // Ctrl-W: the last word goes, with the spaces after it.
                while typed.last == UInt8(ascii: " ") { typed.removeLast() }
                while let last = typed.last, last != UInt8(ascii: " ") { typed.removeLast() }
                draw()
            case 0..<32:
                continue
            default:
                typed.append(byte)
                draw()
            }
        }
    }

    /// Asks until the answer names one of `options` (by number, by its label or by one of
    /// its words) and returns its value.
    func choose<Value: Sendable>(
        _ options: [ChoiceOption<Value>],
        prompt: String = localized("console.choose")
    ) async throws(PresenterError) -> Value {
        for (index, option) in options.enumerated() {
            line("  \(styled("\(index + 1))", .cyan)) \(option.label)")
        }
        while true {
            // An answer that picks nothing is not written back: it may be a passcode a
            // script sent for another prompt.
            let typed = try await ask("\(prompt) [1-\(options.count)]: ", echoing: false)
            let answer = typed.lowercased()
            if answer == Self.quitWord, !options.contains(where: { $0.words.contains(answer) }) {
                echo(typed)
                try quit()
            }
            if let handler = aside.withLock({ $0 }), let said = handler(answer) {
                echo(typed)
                line(said)
                continue
            }
            if let number = Int(answer), options.indices.contains(number - 1) {
                echo(typed)
                return options[number - 1].value
            }
            if let option = options.first(where: { $0.words.contains(answer) || $0.label.lowercased() == answer }) {
                echo(typed)
                return option.value
            }
            echo("")
            line(localized("console.typeNumber", options.count))
        }
    }

    /// Asks a yes-or-no question; the answers are the table's (`y`/`n` in English, `j`/`n`
    /// in German), and the English ones always do.
    func confirm(_ question: String) async throws(PresenterError) -> Bool {
        let yes = Self.words(localized("console.yesWords")).union(["y", "yes"])
        let no = Self.words(localized("console.noWords")).union(["n", "no"])
        while true {
            let typed = try await ask("\(question) [\(localized("console.yesNo"))]: ", echoing: false)
            let answer = typed.lowercased()
            // Only a known answer is written back, as at a menu.
            echo(answer == Self.quitWord || yes.contains(answer) || no.contains(answer) ? typed : "")
            if answer == Self.quitWord { try quit() }
            if yes.contains(answer) { return true }
            if no.contains(answer) { return false }
            line(localized("console.answerYesOrNo"))
        }
    }

    /// Ends the screen in progress because the person asked to leave the app.
    private func quit() throws(PresenterError) -> Never {
        quitting.store(true, ordering: .relaxed)
        throw PresenterError.closed("the person quit")
    }

    /// The words of a comma-separated list, in lower case.
    private static func words(_ list: String) -> Set<String> {
        Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }
}

/// One answer in a menu: its label, the words that also pick it, and its value.
struct ChoiceOption<Value: Sendable>: Sendable {
    var label: String
    var words: [String]
    var value: Value

    init(_ label: String, words: [String] = [], _ value: Value) {
        self.label = label
        self.words = words.map { $0.lowercased() }
        self.value = value
    }
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}

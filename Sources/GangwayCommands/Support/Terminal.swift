import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input and output, and passcode entry without echo.
enum Terminal {
    /// Whether standard input is a terminal.
    static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Writes a line to standard error.
    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Writes a line to standard output.
    static func line(_ text: String) {
        write(text + "\n")
    }

    /// Writes to standard output without a newline and flushes.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Reads one line from the terminal with echo turned off; the prompt goes to standard
    /// error so standard output stays clean for values.
    static func readSecretLine(prompt: String) -> String? {
        var original = termios()
        let haveTerminal = tcgetattr(STDIN_FILENO, &original) == 0
        if haveTerminal {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            // Echo goes off before the prompt appears, and anything typed earlier (which
            // the terminal has already shown) is discarded.
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        defer {
            if haveTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &original) }
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        return Swift.readLine(strippingNewline: true)
    }
}

/// Standard input read whole on first use, handed out a line at a time and then as the
/// remaining bytes (for a value after the passcode lines).
final class StandardInput {
    private var buffer: Data?
    private var offset = 0

    private func load() -> Data {
        if let buffer { return buffer }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        buffer = data
        return data
    }

    /// The next line without its newline, or `nil` at the end.
    func readLine() -> String? {
        let data = load()
        guard offset < data.count else { return nil }
        let start = data.startIndex + offset
        let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
        var line = data[start..<end]
        offset = end - data.startIndex + (end < data.endIndex ? 1 : 0)
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }

    /// Everything not yet read.
    func rest() -> Data {
        let data = load()
        defer { offset = data.count }
        return data.suffix(from: data.startIndex + offset)
    }
}

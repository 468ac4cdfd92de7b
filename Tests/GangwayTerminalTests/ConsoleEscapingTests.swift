import Foundation
import Synchronization
import Testing

@testable import GangwayTerminal

@Suite("The terminal shows text from a server, a device or a provider escaped; only its own styles are codes")
struct ConsoleEscapingTests {
    /// A console that keeps what it writes.
    private func console(interactive: Bool) -> (Console, @Sendable () -> String) {
        let written = Mutex("")
        let console = Console(
            mode: interactive ? .interactive : .plain,
            output: { text in written.withLock { $0 += text } }
        )
        return (console, { written.withLock { $0 } })
    }

    @Test("a display name with escape codes cannot clear the screen, set the title or move the cursor")
    func hostileTextIsEscaped() {
        for interactive in [true, false] {
            let (console, written) = console(interactive: interactive)
            let name = "Mallory\u{1B}]0;pwned\u{7}\u{1B}[2J\u{1B}[1A\u{9B}2K\r\u{202E}"
            console.line("Signed in: " + console.styled(name, .bold))
            let text = written()
            #expect(!text.unicodeScalars.contains { ["\u{7}", "\u{9B}", "\r", "\u{202E}"].contains($0) })
            #expect(text.contains(#"Mallory\u{1B}]0;pwned\u{7}\u{1B}[2J\u{1B}[1A\u{9B}2K\u{D}\u{202E}"#))
            // The only escape codes are the console's own bold and reset, on a terminal.
            let codes = text.components(separatedBy: "\u{1B}").count - 1
            #expect(codes == (interactive ? 2 : 0), "\(text.debugDescription)")
        }
    }

    @Test("a style mark forged in text from elsewhere is at most a colour: never a screen clear")
    func forgedMarks() {
        #expect(Console.rendered("\u{E000}2J\u{E001}x") == "\u{E000}2J\u{E001}x")
        #expect(Console.rendered("\u{E000}31\u{E001}red\u{E000}0\u{E001}") == "\u{1B}[31mred\u{1B}[0m")
    }

    @Test("the console's own cursor moves are written on a terminal only")
    func controls() {
        let (terminal, onTerminal) = console(interactive: true)
        terminal.control(.clearLine)
        terminal.control(.up(2))
        #expect(onTerminal() == "\r\u{1B}[2K\u{1B}[2A")
        let (plain, inPlain) = console(interactive: false)
        plain.control(.clearScreen)
        #expect(inPlain().isEmpty)
    }
}

import Foundation
import GangwaySystem

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `gangway` on a pseudo-terminal, answering prompts as a person at a keyboard
/// would, and keeps everything the terminal showed.
final class PseudoTerminalSession {
    private let master: Int32
    private let process = Process()
    private(set) var screen = ""

    init(arguments: [String], environment: [String: String]) throws {
        let libc = LibcPseudoTerminal()
        master = libc.open(O_RDWR | O_NOCTTY)
        guard master >= 0, libc.grant(master) == 0, libc.unlock(master) == 0, let name = libc.name(master) else {
            throw PseudoTerminalError.unavailable
        }
        let slave = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw PseudoTerminalError.unavailable }
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = GangwayProcess.executable
        process.arguments = arguments
        // English texts whatever the machine's locale, and a terminal that says what it is
        // and wants colours (the test runner may say `dumb`, or set NO_COLOR), unless the
        // story sets its own.
        var inherited = ProcessInfo.processInfo.environment
        inherited["NO_COLOR"] = nil
        process.environment = inherited.merging(["LC_ALL": "C.UTF-8", "TERM": "xterm-256color"]) { $1 }
            .merging(environment) { $1 }
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.start()
        try handle.close()
    }

    deinit { close(master) }

    /// Reads until the screen shows `text` (or the time runs out).
    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !screen.contains(text), ContinuousClock.now < deadline {
            guard readAvailable(waitMilliseconds: 100) else { break }
        }
        return screen.contains(text)
    }

    /// How much of the screen ``next(_:timeout:)`` has gone past.
    private var seen = 0

    /// Reads until `text` shows after what the last call found, and moves past it: for
    /// a prompt that shows many times.
    @discardableResult
    func next(_ text: String, timeout: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let unseen = screen.utf8.dropFirst(seen)
            if let range = Substring(unseen).range(of: text) {
                seen = screen.utf8.distance(from: screen.utf8.startIndex, to: range.upperBound)
                return true
            }
            guard ContinuousClock.now < deadline, readAvailable(waitMilliseconds: 100) else { return false }
        }
    }

    /// Whether the terminal echoes what is typed and reads it a line at a time: as the
    /// process left it, once it ended.
    var isInLineMode: Bool {
        var settings = termios()
        guard tcgetattr(master, &settings) == 0 else { return false }
        return settings.c_lflag & tcflag_t(ECHO) != 0 && settings.c_lflag & tcflag_t(ICANON) != 0
    }

    /// Types a line.
    func type(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Sends `signal` to the process, as the terminal sends SIGINT to the foreground
    /// process for Ctrl-C (this terminal is not the process's controlling one, so the key
    /// alone would not).
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Presses keys: their bytes, with no line ending (`[3]` is Ctrl-C).
    func press(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits for the process to end, collecting what it still prints.
    func finish(timeout: Duration = .seconds(30)) -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while readAvailable(waitMilliseconds: 200), ContinuousClock.now < deadline {}
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Reads what is available; false once the terminal is closed.
    private func readAvailable(waitMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, waitMilliseconds)
        if ready == 0 { return process.isRunning }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        screen += String(decoding: buffer[0..<count], as: UTF8.self)
        return true
    }
}

enum PseudoTerminalError: Error {
    case unavailable
}

/// The C library's pseudo-terminal calls, which Swift's Glibc module does not export
/// (they need `_XOPEN_SOURCE`), looked up by name.
private struct LibcPseudoTerminal {
    typealias Open = @convention(c) (Int32) -> Int32
    typealias Control = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    let open: Open
    let grant: Control
    let unlock: Control
    let name: Name

    init() {
        let handle = dlopen(nil, RTLD_NOW)
        func symbol<T>(_ name: String, as type: T.Type) -> T {
            unsafeBitCast(dlsym(handle, name), to: type)
        }
        open = symbol("posix_openpt", as: Open.self)
        grant = symbol("grantpt", as: Control.self)
        unlock = symbol("unlockpt", as: Control.self)
        name = symbol("ptsname", as: Name.self)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal without line editing, echo or signal keys, while a passcode is typed:
/// each key reaches the app, which shows a dot for it and nothing else. Or, for a secret
/// read as a line (`--plain`), the terminal without echo only.
///
/// Should the app be stopped meanwhile (Ctrl-C, SIGTERM, SIGHUP), ``Interruption`` puts
/// the terminal back before the process ends.
struct RawMode: Sendable {
    private let descriptor: Int32
    private let original: termios

    private let cleanup: Int

    /// Switches `descriptor` to raw mode; `nil` when it is not a terminal.
    /// - Parameters:
    ///   - discardingTypeAhead: Drops what was typed before, which the terminal has
    ///     already shown, so it cannot become the start of a passcode.
    ///   - keepingLines: Turns off only the echo: the terminal still reads a line at a
    ///     time, with its own editing and signal keys.
    init?(descriptor: Int32 = STDIN_FILENO, discardingTypeAhead: Bool = false, keepingLines: Bool = false) {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return nil }
        let original = settings
        self.descriptor = descriptor
        self.original = original
        cleanup = Interruption.register { RawMode.set(original, on: descriptor) }
        settings.c_lflag &= keepingLines ? ~tcflag_t(ECHO) : ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        tcsetattr(descriptor, discardingTypeAhead ? TCSAFLUSH : TCSANOW, &settings)
    }

    /// Puts the terminal back as it was.
    func restore() {
        Self.set(original, on: descriptor)
        Interruption.unregister(cleanup)
    }

    private static func set(_ settings: termios, on descriptor: Int32) {
        var settings = settings
        tcsetattr(descriptor, TCSANOW, &settings)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal without line editing, echo or signal keys, while a passcode is typed:
/// each key reaches the app, which shows a dot for it and nothing else.
struct RawMode {
    private let descriptor: Int32
    private let original: termios

    /// Switches `descriptor` to raw mode; `nil` when it is not a terminal.
    /// - Parameter discardingTypeAhead: Drops what was typed before, which the terminal
    ///   has already shown, so it cannot become the start of a passcode.
    init?(descriptor: Int32 = STDIN_FILENO, discardingTypeAhead: Bool = false) {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return nil }
        self.descriptor = descriptor
        original = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        tcsetattr(descriptor, discardingTypeAhead ? TCSAFLUSH : TCSANOW, &settings)
    }

    /// Puts the terminal back as it was.
    func restore() {
        var settings = original
        tcsetattr(descriptor, TCSANOW, &settings)
    }
}

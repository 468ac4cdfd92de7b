import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ctrl-C in the device app: the same at every prompt and between them. One line says
/// the app stops, and the process ends with the shell's code for an interrupt (130).
///
/// On a terminal in line mode Ctrl-C arrives as SIGINT; while a passcode is typed the
/// terminal is raw and the app reads it as a key (``Console/askSecret(_:live:)``), which
/// puts the terminal back and ends the same way. What the stores wrote stays: each of
/// their writes is atomic, so an end between two is an end the app recovers from.
enum Interruption {
    /// The exit code of a process ended by SIGINT, as shells report it.
    static let exitCode: Int32 = 128 + SIGINT

    private static let source = Mutex<(any DispatchSourceSignal)?>(nil)
    private static let cleanups = Mutex<[Int: @Sendable () -> Void]>([:])
    private static let nextCleanup = Atomic<Int>(0)

    /// Runs `body` with `cleanup` to run should the app stop on Ctrl-C meanwhile (the
    /// embedded server's URL file, which would otherwise name a port nobody serves).
    static func withCleanup<Result>(
        _ cleanup: @escaping @Sendable () -> Void,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let key = nextCleanup.wrappingAdd(1, ordering: .relaxed).oldValue
        cleanups.withLock { $0[key] = cleanup }
        defer { _ = cleanups.withLock { $0.removeValue(forKey: key) } }
        return try await body()
    }

    /// Takes SIGINT from its default (the process killed without a word) to ``stop()``.
    static func install() {
        source.withLock { source in
            guard source == nil else { return }
            signal(SIGINT, SIG_IGN)
            let signals = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            signals.setEventHandler { stop() }
            signals.resume()
            source = signals
        }
    }

    /// Says the app stops, and ends the process with ``exitCode``.
    static func stop() -> Never {
        for cleanup in cleanups.withLock({ $0.values }) { cleanup() }
        let text = "\n" + localized("interrupted") + "\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        exit(exitCode)
    }
}

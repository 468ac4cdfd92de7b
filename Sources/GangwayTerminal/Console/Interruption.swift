import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ctrl-C in the device app, and a request to stop from outside (SIGTERM, SIGHUP): the
/// same at every prompt and between them. One line says the app stops, the cleanups run
/// (the terminal leaves raw mode), and the process ends with the shell's code for the
/// signal (130 for Ctrl-C).
///
/// On a terminal in line mode Ctrl-C arrives as SIGINT; while a passcode is typed the
/// terminal is raw and the app reads it as a key (``Console/askSecret(_:live:)``), which
/// puts the terminal back and ends the same way. What the stores wrote stays: each of
/// their writes is atomic, so an end between two is an end the app recovers from.
package enum Interruption {
    /// The exit code of a process ended by SIGINT, as shells report it.
    static let exitCode: Int32 = 128 + SIGINT

    /// The signals that stop the app this way.
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private static let sources = Mutex<[any DispatchSourceSignal]>([])
    private static let cleanups = Mutex<[Int: @Sendable () -> Void]>([:])
    private static let nextCleanup = Atomic<Int>(0)

    /// Runs `body` with `cleanup` to run should the app stop on Ctrl-C meanwhile (the
    /// embedded server's URL file, which would otherwise name a port nobody serves).
    package static func withCleanup<Result>(
        _ cleanup: @escaping @Sendable () -> Void,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        let key = register(cleanup)
        defer { unregister(key) }
        return try await body()
    }

    /// Keeps `cleanup` to run should the app stop before ``unregister(_:)`` with the key
    /// returned.
    static func register(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        let key = nextCleanup.wrappingAdd(1, ordering: .relaxed).oldValue
        cleanups.withLock { $0[key] = cleanup }
        return key
    }

    static func unregister(_ key: Int) {
        _ = cleanups.withLock { $0.removeValue(forKey: key) }
    }

    /// Takes SIGINT, SIGTERM and SIGHUP from their default (the process killed without a
    /// word, a raw terminal left raw) to ``stop(signal:)``.
    static func install() {
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { stop(signal: number) }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// Says the app stops, runs the cleanups, and ends the process with the code of
    /// `signal` (``exitCode`` for Ctrl-C).
    static func stop(signal number: Int32 = SIGINT) -> Never {
        for cleanup in cleanups.withLock({ $0.values }) { cleanup() }
        let said =
            number == SIGINT ? localized("interrupted") : localized("stopped", number == SIGTERM ? "SIGTERM" : "SIGHUP")
        let text = "\n" + said + "\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
        exit(128 + number)
    }
}

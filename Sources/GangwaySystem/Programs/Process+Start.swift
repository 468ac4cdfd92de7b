import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Process {
    /// Starts the program, or refuses with ``ProgramStartError/tooManyOpenFiles``
    /// where Foundation's own `run()` could crash this program.
    ///
    /// On Linux, swift-corelibs-foundation before its fix #5472 (Swift 6.3.1 among them)
    /// copies each entry of `/proc/self/fd` whole while it finds the files to close in
    /// the child; once this program has more than about 1,300 files open, the copy can
    /// read past the end of the directory buffer and crash. Gangway's shipped code starts
    /// programs through ``ExternalTool`` (swift-subprocess), which has no such limit; the
    /// tests and benchmarks start their long-running programs here.
    public func start() throws {
        #if os(Linux)
            if let open = Process.openFileCount(), open > Process.safeOpenFileCount {
                throw ProgramStartError.tooManyOpenFiles(open)
            }
        #endif
        try run()
    }

    /// The most files this program may have open for ``start()`` to start one: well below
    /// where Foundation's copy reaches the end of its 32 KiB directory buffer.
    public static let safeOpenFileCount = 1_000

    /// How many files this program has open, counted without reading the entries' names;
    /// `nil` where `/proc` is not there.
    public static func openFileCount() -> Int? {
        #if os(Linux)
            guard let directory = opendir("/proc/self/fd") else { return nil }
            defer { closedir(directory) }
            var entries = 0
            while readdir(directory) != nil { entries += 1 }
            // ".", ".." and the descriptor of the listing itself.
            return max(0, entries - 3)
        #else
            return nil
        #endif
    }
}

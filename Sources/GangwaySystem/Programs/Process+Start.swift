import Foundation

extension Process {
    /// Starts the program, while no other thread of this program starts one through here.
    ///
    /// swift-corelibs-foundation's `run()` is not safe to call from several threads at
    /// once: two starts at the same moment crashed copying memory inside it. Every place
    /// Gangway starts a program (``ExternalTool``, the benchmarks, the tests) goes through
    /// this one lock; the programs themselves still run side by side.
    public func start() throws {
        try processStartLock.withLock { try run() }
    }
}

private let processStartLock = NSLock()

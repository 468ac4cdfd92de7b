import Foundation

extension Process {
    /// A child that did not end in the time a test gave it, and was killed.
    public struct DidNotExit: Error, CustomStringConvertible {
        public var limit: Duration
        public var description: String { "the process did not end within \(limit); it was killed" }
    }

    /// Waits for the process to end without holding one of the few threads every test's
    /// tasks share (``onOwnThread(_:)``): a test that waits for a child never stalls the
    /// others, nor a server in the same process the child may be talking to. A child still
    /// running after `limit` is killed, and the wait throws ``DidNotExit``, so a test that
    /// would have waited for ever fails and says why.
    public func exit(within limit: Duration = .seconds(120)) async throws {
        let process = UncheckedProcess(process: self)
        let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await onOwnThread { process.process.waitUntilExit() }
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            let first = try await group.next() ?? false
            if !first, process.process.isRunning { kill(process.process.processIdentifier, SIGKILL) }
            // The group ends once the waiting thread has, which the process's end (or the
            // kill) brings.
            group.cancelAll()
            return first
        }
        if !ended { throw DidNotExit(limit: limit) }
    }
}

/// A process handed to the thread that waits for it; only that thread and the timer read it.
private struct UncheckedProcess: @unchecked Sendable {
    let process: Process
}

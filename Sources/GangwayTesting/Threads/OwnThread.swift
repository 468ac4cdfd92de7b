import Foundation

/// Runs `body`, which blocks (a socket read, a child process waited for), on a thread of
/// its own: the few threads every test's tasks share (two on a two-core machine) are never
/// held by it, so a server in the same process goes on answering meanwhile.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}

import Dispatch
import Synchronization

/// Runs `body` to its end and returns its result, blocking the calling thread: libFuzzer
/// calls a harness synchronously, while Gangway's API is asynchronous.
///
/// The work runs on the global concurrent executor, never on the blocked thread.
public func blocking<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
    let box = Mutex<Result?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result = await body()
        box.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return box.withLock { $0! }
}

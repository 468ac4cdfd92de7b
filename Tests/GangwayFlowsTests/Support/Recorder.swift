import Synchronization

/// Collects what steps did, in order, from any task.
final class Recorder: Sendable {
    private let events = Mutex<[String]>([])

    func record(_ event: String) { events.withLock { $0.append(event) } }

    var all: [String] { events.withLock { $0 } }
}

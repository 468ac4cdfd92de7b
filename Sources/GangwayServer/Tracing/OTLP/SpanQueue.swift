import Synchronization

/// The spans that ended and wait to be sent, between the requests that end them and the
/// export that sends them (``SpanExporter``): appending is a lock and an append, with no
/// task, actor or event loop woken, except once a batch's worth is waiting.
///
/// Past ``capacity`` spans waiting (a collector slower than the server, or down), a new
/// span is dropped and counted, and the export says how many.
final class SpanQueue: Sendable {
    /// The most spans waiting.
    let capacity: Int
    /// How many spans waiting wake the export before its next round.
    let batchSize: Int
    private let state: Mutex<(spans: [FinishedSpan], dropped: Int)>
    private let wakes: AsyncStream<Void>.Continuation
    /// What wakes the export: a batch's worth waiting, or ``wake()``.
    let wakings: AsyncStream<Void>

    init(capacity: Int, batchSize: Int) {
        precondition(capacity >= batchSize && batchSize > 0, "a queue holds at least a batch")
        self.capacity = capacity
        self.batchSize = batchSize
        state = Mutex(([], 0))
        (wakings, wakes) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues `span`, or drops it when the queue is full.
    func append(_ span: FinishedSpan) {
        let waiting = state.withLock { state in
            guard state.spans.count < capacity else {
                state.dropped += 1
                return 0
            }
            state.spans.append(span)
            return state.spans.count
        }
        if waiting == batchSize { wakes.yield() }
    }

    /// Takes up to `limit` of the oldest spans waiting, and how many were dropped since
    /// the last take.
    func take(upTo limit: Int) -> (spans: [FinishedSpan], dropped: Int) {
        state.withLock { state in
            let taken = Array(state.spans.prefix(limit))
            state.spans.removeFirst(taken.count)
            defer { state.dropped = 0 }
            return (taken, state.dropped)
        }
    }

    /// How many spans wait.
    var count: Int { state.withLock { $0.spans.count } }

    /// Wakes the export now (its timer).
    func wake() { wakes.yield() }

    /// Ends the wakings: the export sends what waits, and stops.
    func finish() { wakes.finish() }
}

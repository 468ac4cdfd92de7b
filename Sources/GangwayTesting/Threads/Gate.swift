/// At most `width` callers inside at once; the others wait their turn, first come first
/// served, without holding a thread. Tests that start programs take turns through one,
/// so that however many run in parallel, the process never holds more files open than
/// a program may be started with, nor more programs than the machine has cores for.
///
/// A caller that comes `first` waits only behind others that came first: a serialized
/// suite, whose tests follow one another, takes each of its turns so, and runs beside the
/// rest rather than alone after them.
public actor Gate {
    private let width: Int
    private var inside = 0
    private var waitingFirst: [CheckedContinuation<Void, Never>] = []
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(width: Int) { self.width = width }

    /// How many callers wait for their turn.
    public var waiters: Int { waitingFirst.count + waiting.count }

    public func enter(first: Bool = false) async {
        guard inside >= width else {
            inside += 1
            return
        }
        await withCheckedContinuation { continuation in
            if first { waitingFirst.append(continuation) } else { waiting.append(continuation) }
        }
    }

    public func leave() {
        if !waitingFirst.isEmpty {
            waitingFirst.removeFirst().resume()
        } else if !waiting.isEmpty {
            waiting.removeFirst().resume()
        } else {
            inside -= 1
        }
    }

    /// Runs `body` inside: after its turn has come, and leaving when it ends or throws.
    public nonisolated func inside<Value>(
        first: Bool = false,
        _ body: () async throws -> Value
    ) async throws -> Value {
        await enter(first: first)
        do {
            let value = try await body()
            await leave()
            return value
        } catch {
            await leave()
            throw error
        }
    }
}

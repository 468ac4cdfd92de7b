/// At most `width` callers inside at once; the others wait their turn, first come first
/// served, without holding a thread. Tests that start programs take turns through one,
/// so that however many run in parallel, the process never holds more files open than
/// a program may be started with, nor more programs than the machine has cores for.
public actor Gate {
    private let width: Int
    private var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(width: Int) { self.width = width }

    public func enter() async {
        guard inside >= width else {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func leave() {
        if waiting.isEmpty {
            inside -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Runs `body` inside: after its turn has come, and leaving when it ends or throws.
    public nonisolated func inside<Value>(_ body: () async throws -> Value) async throws -> Value {
        await enter()
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

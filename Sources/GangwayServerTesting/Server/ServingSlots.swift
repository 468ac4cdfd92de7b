/// How many test servers serve at once in one process: swift-testing runs every test at
/// the same time, and a hundred servers each with its database files, listening socket
/// and connections once took a test process past 2,000 open files, where Foundation's
/// `Process` can crash while starting a program (see `Process.start()` in GangwaySystem).
///
/// A run waits for a slot, first come first served. A run inside another (a second server
/// over the same database, say) uses its caller's slot, so nesting never waits on itself.
actor ServingSlots {
    /// The slots of this process.
    static let shared = ServingSlots(limit: 8)

    /// Whether the current task already holds a slot.
    @TaskLocal private static var holding = false

    private let limit: Int
    private var inUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    /// Runs `body` while holding a slot, waiting for one first when all are taken.
    static func withSlot<Result>(_ body: () async throws -> Result) async throws -> Result {
        if holding { return try await body() }
        await shared.acquire()
        do {
            let result = try await $holding.withValue(true) { try await body() }
            await shared.release()
            return result
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        if inUse < limit {
            inUse += 1
            return
        }
        // The slot is handed over by `release()`, so `inUse` stays as it is.
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

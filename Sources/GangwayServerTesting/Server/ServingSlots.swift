import GangwayTesting

/// How many test servers serve at once in one process: swift-testing runs every test at
/// the same time, and a hundred servers each with its database files, listening socket
/// and connections once took a test process past 2,000 open files, where Foundation's
/// `Process` can crash while starting a program (see `Process.start()` in GangwaySystem).
///
/// A run waits for a slot, first come first served. A run inside another (a second server
/// over the same database, say) uses its caller's slot, so nesting never waits on itself.
enum ServingSlots {
    /// The slots of this process.
    static let shared = Gate(width: 8)

    /// Whether the current task already holds a slot.
    @TaskLocal private static var holding = false

    /// Runs `body` while holding a slot, waiting for one first when all are taken (ahead
    /// of the others when it comes `first`: ``Gate``).
    static func withSlot<Result>(first: Bool = false, _ body: () async throws -> Result) async throws -> Result {
        if holding { return try await body() }
        return try await shared.inside(first: first) { try await $holding.withValue(true) { try await body() } }
    }
}

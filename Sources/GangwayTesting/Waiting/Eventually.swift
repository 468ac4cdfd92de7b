/// Asks `condition` every few milliseconds until it holds or `limit` has passed: for
/// what another process or connection makes true soon but not at once (a notice heard).
/// The limit is a bound on a failure, never a figure measured: a benchmark measures.
///
/// - Returns: Whether `condition` held before the limit.
public func eventually(
    within limit: Duration = .seconds(5),
    every pause: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while true {
        if try await condition() { return true }
        guard clock.now < deadline else { return false }
        try await Task.sleep(for: pause)
    }
}

/// Growing waits imposed after wrong passcodes, on top of the retry limit.
///
/// The first ``freeAttempts`` wrong passcodes cost nothing; after that each wrong passcode
/// doubles the wait, starting at ``initialDelay`` and capped at ``maximumDelay``. The
/// time of the last failure is stored with the failure count, so a restart does not
/// skip the wait.
public struct LockoutDelays: Sendable, Hashable, Codable {
    /// Wrong passcodes allowed before any wait.
    public var freeAttempts: Int
    /// The first wait.
    public var initialDelay: Duration
    /// The longest wait.
    public var maximumDelay: Duration

    /// Creates a delay schedule.
    public init(freeAttempts: Int = 3, initialDelay: Duration = .seconds(5), maximumDelay: Duration = .seconds(300)) {
        self.freeAttempts = freeAttempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait required after this many consecutive wrong passcodes.
    public func delay(afterFailures failures: Int) -> Duration {
        let excess = failures - freeAttempts
        guard excess > 0 else { return .zero }
        var delay = initialDelay
        for _ in 1..<excess {
            delay *= 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }
}

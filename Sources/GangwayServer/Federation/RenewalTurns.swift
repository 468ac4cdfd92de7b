import Synchronization

/// One renewal at a time per refresh token family: two refreshes of one token at once
/// would both renew at the provider with the same provider refresh token, and a provider
/// that rotates its refresh tokens refuses the second, which would end the person's
/// sign-in. The second waits, then renews with the grant the first one stored.
final class RenewalTurns: Sendable {
    private let waiting = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// Runs `body` once no other call for `family` runs.
    func inTurn<Result>(of family: String, _ body: () async throws -> Result) async throws -> Result {
        await take(family)
        do {
            let result = try await body()
            give(family)
            return result
        } catch {
            give(family)
            throw error
        }
    }

    private func take(_ family: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = waiting.withLock { waiting -> Bool in
                guard waiting[family] != nil else {
                    waiting[family] = []
                    return true
                }
                waiting[family]?.append(continuation)
                return false
            }
            if free { continuation.resume() }
        }
    }

    private func give(_ family: String) {
        let next = waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
            guard var queue = waiting[family], !queue.isEmpty else {
                waiting[family] = nil
                return nil
            }
            let first = queue.removeFirst()
            waiting[family] = queue
            return first
        }
        next?.resume()
    }
}

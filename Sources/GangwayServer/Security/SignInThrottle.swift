import Foundation

/// Counts failed sign-ins per user name and address, and refuses more for a while once
/// there are too many.
///
/// The counts live in the database, so several server processes share them. Once there
/// are ``Rules/allowedFailures`` failures in a ``Rules/window``, the pair is blocked for
/// ``Rules/firstBlock``; each further failure doubles the block, up to
/// ``Rules/longestBlock``. A
/// successful sign-in clears the count. While blocked, the password is not checked at
/// all, so the block also stops guessing.
struct SignInThrottle: Sendable {
    struct Rules: Sendable {
        var allowedFailures = 5
        var window: Duration = .seconds(15 * 60)
        var firstBlock: Duration = .seconds(30)
        var longestBlock: Duration = .seconds(15 * 60)
    }

    let storage: any ServerStorage
    let rules: Rules
    let now: @Sendable () -> Date

    static func key(username: String, address: String) -> String {
        "\(username.lowercased())|\(address)"
    }

    /// Throws 429 when the pair is blocked now.
    func check(_ key: String) async throws(APIError) {
        let failures: SignInFailures?
        do {
            failures = try await storage.signInFailures(key: key)
        } catch {
            throw .storage(error)
        }
        if let blockedUntil = failures?.blockedUntil {
            let wait = blockedUntil.timeIntervalSince(now())
            if wait > 0 { throw .throttled(retryAfter: Int(wait.rounded(.up))) }
        }
    }

    /// Counts a failure, blocking the pair when it is one too many.
    func recordFailure(_ key: String) async throws(APIError) {
        let time = now()
        do {
            var failures =
                try await storage.signInFailures(key: key) ?? SignInFailures(key: key, count: 0, firstFailureAt: time)
            if time.timeIntervalSince(failures.firstFailureAt) > rules.window.seconds {
                failures = SignInFailures(key: key, count: 0, firstFailureAt: time)
            }
            failures.count += 1
            let excess = failures.count - rules.allowedFailures + 1
            if excess > 0 {
                let doubled = rules.firstBlock.seconds * pow(2, Double(min(excess - 1, 20)))
                failures.blockedUntil = time.addingTimeInterval(min(doubled, rules.longestBlock.seconds))
            }
            try await storage.saveSignInFailures(failures)
        } catch {
            throw .storage(error)
        }
    }

    func recordSuccess(_ key: String) async throws(APIError) {
        do {
            try await storage.clearSignInFailures(key: key)
        } catch {
            throw .storage(error)
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

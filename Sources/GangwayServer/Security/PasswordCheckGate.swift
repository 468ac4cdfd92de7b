/// Bounds the password checks running and waiting, so a flood of sign-ins is refused at
/// once (503 with `Retry-After`) instead of queueing in front of everyone's.
///
/// At most ``Limits/running`` checks run (one per hashing thread) and at most
/// ``Limits/waiting`` wait. A sign-in that presents its device cookie is *preferred*: it
/// waits in a queue of its own, served first, with room for as many again, so the people
/// who already use a device still sign in while unknown names flood the server.
actor PasswordCheckGate {
    struct Limits: Sendable {
        var running: Int
        var waiting: Int
    }

    private let limits: Limits
    private var running = 0
    private var preferred: [CheckedContinuation<Void, Never>] = []
    private var others: [CheckedContinuation<Void, Never>] = []

    init(_ limits: Limits) {
        self.limits = limits
    }

    /// Runs `check` when a slot is free, or throws ``APIError/busy`` when the queue it
    /// would wait in is full.
    func run<Value: Sendable>(
        preferred isPreferred: Bool,
        _ check: @Sendable () async throws -> Value
    ) async throws -> Value {
        if running < limits.running {
            running += 1
        } else {
            let queued = isPreferred ? preferred.count : others.count
            guard queued < limits.waiting else { throw APIError.busy }
            // The slot is handed over by `leave()`: `running` stays counted.
            await withCheckedContinuation { continuation in
                if isPreferred { preferred.append(continuation) } else { others.append(continuation) }
            }
        }
        defer { leave() }
        return try await check()
    }

    private func leave() {
        if !preferred.isEmpty {
            preferred.removeFirst().resume()
        } else if !others.isEmpty {
            others.removeFirst().resume()
        } else {
            running -= 1
        }
    }
}

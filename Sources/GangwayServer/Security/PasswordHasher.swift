import Crypto
import Foundation
import HummingbirdBcrypt
import NIOCore
import NIOPosix
import Synchronization

/// bcrypt, run on NIO's thread pool so a sign-in never stalls an event loop, behind a
/// ``PasswordCheckGate`` so a flood of sign-ins cannot queue in front of everyone's.
///
/// bcrypt reads at most 72 bytes, so the password is first reduced to the base64 of its
/// SHA-256 (44 bytes): every character of a long password counts, and no two passwords
/// share a hash because their first 72 bytes agree.
struct PasswordHasher: Sendable {
    /// The bcrypt cost (log2 of the rounds) new hashes get: 12 by default; tests use 4.
    let cost: UInt8
    private let gate: PasswordCheckGate
    /// The console's operators have a gate of their own: a flood of the devices' sign-ins
    /// keeps no operator out.
    private let consoleGate: PasswordCheckGate
    /// A hash of a password nobody has, at the current cost: what an unknown user's
    /// password is checked against.
    private let placeholderHash: String
    /// How long a check at the current cost takes here, for padding a cheaper one.
    private let fullCheck: CheckDuration

    /// - Parameter concurrentChecks: How many checks run at once (at most) and how many
    ///   more may wait; by default one per thread of NIO's blocking pool, and as many
    ///   again waiting.
    init(cost: UInt8 = ServerConfiguration.defaultBcryptCost, concurrentChecks: Int? = nil) {
        precondition(ServerConfiguration.bcryptCosts.contains(cost), "bcrypt cost out of range")
        self.cost = cost
        let threads = max(1, concurrentChecks ?? NIOSingletons.blockingPoolThreadCountSuggestion)
        gate = PasswordCheckGate(.init(running: threads, waiting: threads))
        consoleGate = PasswordCheckGate(.init(running: 1, waiting: threads))
        let started = ContinuousClock.now
        placeholderHash = Bcrypt.hash("gangway-placeholder-password", cost: cost)
        fullCheck = CheckDuration(started.duration(to: .now))
    }

    func hash(_ password: String) async throws -> String {
        let cost = cost
        let input = Self.prepared(password)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(input, cost: cost) }
    }

    /// Runs one sign-in's counting and password check when a slot is free; throws
    /// ``APIError/busy`` at once when too many run and wait (see ``PasswordCheckGate``).
    /// A refused sign-in therefore counts nowhere and costs no database write.
    ///
    /// - Parameters:
    ///   - preferred: A sign-in from a device that presented its cookie, let in ahead of
    ///     the others.
    ///   - console: An operator's sign-in to the console, which waits apart from the
    ///     devices' sign-ins.
    func admitted<Value: Sendable>(
        preferred: Bool,
        console: Bool = false,
        _ body: @Sendable () async throws -> Value
    ) async throws -> Value {
        try await (console ? consoleGate : gate).run(preferred: preferred, body)
    }

    /// Whether `password` matches `hash`; with no hash (an unknown user), a check of a
    /// placeholder at the current cost, so an unknown name takes as long as a known one.
    /// Call it inside ``admitted(preferred:_:)``.
    ///
    /// A hash of a lower cost (made before the operator raised it, and replaced at the
    /// user's next successful sign-in) is checked as it is, and the answer waits until a
    /// check at the current cost would have ended: a wrong password for such a user takes
    /// as long as one for an unknown user, so the time tells no one who exists.
    func verify(_ password: String, against hash: String?) async throws -> Bool {
        let input = Self.prepared(password)
        let stored = hash ?? placeholderHash
        let started = ContinuousClock.now
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(input, hash: stored) }
        let elapsed = started.duration(to: .now)
        switch Self.cost(of: stored).map({ $0 < cost }) {
        case true?:
            let target = fullCheck.estimate
            if elapsed < target { try? await Task.sleep(for: target - elapsed) }
        case false?:
            if Self.cost(of: stored) == cost { fullCheck.record(elapsed) }
        case nil:
            break
        }
        return matches
    }

    /// Whether `hash` was made at another cost than the current one, so the next
    /// successful sign-in should store a new one: every user's check then costs the same
    /// as an unknown user's.
    func needsRehash(_ hash: String) -> Bool {
        Self.cost(of: hash) != cost
    }

    /// The cost a bcrypt hash (`$2b$12$…`) records.
    static func cost(of hash: String) -> UInt8? {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: true)
        guard parts.count >= 3 else { return nil }
        return UInt8(parts[1])
    }

    private static func prepared(_ password: String) -> String {
        Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }
}

/// How long a password check at the current cost takes on this machine: a moving
/// average of the checks made, starting from the placeholder's hashing at start.
final class CheckDuration: Sendable {
    private let average: Mutex<Duration>

    init(_ first: Duration) {
        average = Mutex(first)
    }

    var estimate: Duration { average.withLock { $0 } }

    /// Takes one check's duration into the average (an eighth of its weight).
    func record(_ duration: Duration) {
        average.withLock { $0 = ($0 * 7 + duration) / 8 }
    }
}

import Foundation
import GangwayProtocol
import GangwayServerStorage
import Logging
import ServiceLifecycle

/// Makes a new token signing key for each purpose once its newest key is ``every`` old
/// (`serve --rotate-keys-days`), looking at start and then every ``interval``; the new key
/// is published ``lead`` before it signs. Every process sharing a PostgreSQL database may
/// run it: the first that finds a key due rotates it, and the others then find a newer
/// key (``SigningKeyRing/rotate(at:lead:onlyIfNewestMadeBy:)``).
struct ScheduledKeyRotation: Service {
    /// How often the keys' age is looked at.
    static let interval: Duration = .seconds(10 * 60)

    let rings: [SigningKeyRing]
    let every: Duration
    /// How long a new key is published before it signs.
    let lead: Duration
    let now: @Sendable () -> Date
    let logger: Logger

    /// Rotates the keys that are due at `now`; the new keys.
    func rotateDue(at now: Date) async throws -> [SigningKeyRecord] {
        let cutoff = now.addingTimeInterval(-TimeInterval(every.components.seconds))
        var rotated: [SigningKeyRecord] = []
        for ring in rings {
            if let key = try await ring.rotate(at: now, lead: lead, onlyIfNewestMadeBy: cutoff) { rotated.append(key) }
        }
        return rotated
    }

    func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do {
                for key in try await rotateDue(at: now()) {
                    logger.notice(
                        "signing key rotated",
                        metadata: ["purpose": "\(key.purpose.rawValue)", "kid": "\(key.kid)", "source": "schedule"]
                    )
                }
            } catch {
                logger.warning("signing keys not rotated; trying again later", metadata: ["reason": "\(error)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
            } catch {
                return
            }
        }
    }
}

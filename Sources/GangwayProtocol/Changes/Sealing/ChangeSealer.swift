import Foundation
import Synchronization

/// Seals the changes a device records, each author's run under a key of its own
/// (``ChangeSeal``'s shared form), so the server agrees one key per run instead of one
/// per change.
///
/// The keys live in this object's memory only, never in a file: a reader of the
/// device's files, or another user of the device, has only the encapsulated keys, which
/// only the server opens. A key seals at most ``changesPerKey`` changes, and a new one is
/// made when the server's key changes.
public final class ChangeSealer: Sendable {
    /// The most changes one key seals.
    public static let changesPerKey = 1_000

    private struct Run {
        var key: SharedSealingKey
        var uses: Int
    }

    private let runs = Mutex<[String: Run]>([:])

    public init() {}

    /// `signed`, sealed to `server` under the run of the author of registration
    /// `registrationID`.
    public func seal(
        _ signed: SignedChange,
        registrationID: String,
        to server: SealingPublicKey
    ) throws(ChangeSealError) -> Data {
        let key = try runs.withLock { runs throws(ChangeSealError) -> SharedSealingKey in
            if var run = runs[registrationID], run.key.recipient == server, run.uses < Self.changesPerKey {
                run.uses += 1
                runs[registrationID] = run
                return run.key
            }
            let key = try ChangeSeal.newSharedKey(to: server)
            runs[registrationID] = Run(key: key, uses: 1)
            return key
        }
        return try ChangeSeal.seal(signed, under: key)
    }
}

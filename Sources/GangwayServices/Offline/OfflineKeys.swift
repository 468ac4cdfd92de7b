import Foundation
import GangwayProtocol

/// A user's keys for offline work on one device, made at their first registration and
/// kept in their encrypted store: the key they sign their changes with, and the key the
/// server's answers to their changes are sealed to in the device's outbox.
public struct OfflineKeys: Sendable {
    public let signing: ChangeSigningKey
    public let answers: SealingPrivateKey

    /// The entry of the user's store that holds them.
    public static let storeKey = "gangway.offline.keys"

    /// New random keys.
    public init() {
        signing = ChangeSigningKey()
        answers = SealingPrivateKey()
    }

    /// The keys kept as ``stored``.
    /// - Throws: ``ChangeKeyError/invalidKey`` when the bytes are not two P-256 keys.
    public init(stored: Data) throws(ChangeKeyError) {
        guard stored.count == 64 else { throw .invalidKey }
        signing = try ChangeSigningKey(rawRepresentation: Data(stored.prefix(32)))
        answers = try SealingPrivateKey(rawRepresentation: Data(stored.suffix(32)))
    }

    /// The 64 bytes the user's store keeps.
    public var stored: Data { signing.rawRepresentation + answers.rawRepresentation }

    /// The author the outbox records this user's changes as.
    public func author(name: String, registrationID: String) -> OutboxAuthor {
        OutboxAuthor(
            name: name,
            registrationID: registrationID,
            signingKey: signing,
            answerKey: answers.publicKey
        )
    }
}

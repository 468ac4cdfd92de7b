import Foundation
import GangwayProtocol

/// A user of the device as the outbox needs them when they make a change: their
/// registration, the key they sign with, and the key the answers to their changes are
/// sealed to (its private part is in their store, so only they read those answers).
public struct OutboxAuthor: Sendable {
    public var name: String
    public var registrationID: String
    public var signingKey: ChangeSigningKey
    public var answerKey: SealingPublicKey

    public init(name: String, registrationID: String, signingKey: ChangeSigningKey, answerKey: SealingPublicKey) {
        self.name = name
        self.registrationID = registrationID
        self.signingKey = signingKey
        self.answerKey = answerKey
    }
}

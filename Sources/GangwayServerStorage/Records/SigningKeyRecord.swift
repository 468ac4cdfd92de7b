import Foundation
import GangwayProtocol

/// One of the keys the server signs a kind of token with (its purpose), sealed under the
/// server key.
///
/// A purpose's keys are numbered by generation. At any moment the key of the highest
/// generation whose `signsFrom` has come signs; a newer one is published ahead of its
/// `signsFrom`, and an older one stays published until the tokens it can have signed have
/// expired (`publishedUntil`). Activation keys are never unpublished: each after the first
/// is endorsed by the one before (`endorsement`), and links carry the chain.
public struct SigningKeyRecord: Sendable, Hashable, Codable {
    public var purpose: Components.Schemas.SigningKeyPurpose
    /// The key's ID in the tokens it signs and in the key set.
    public var kid: String
    /// 1 for a purpose's first key, one more for each key after it.
    public var generation: Int64
    /// The private key, sealed under the server key for this purpose and `kid`.
    public var sealedKey: Data
    public var createdAt: Date
    /// When the key signs its first token.
    public var signsFrom: Date
    /// When the key leaves the key set; `nil` while no newer key has been made. The row is
    /// deleted after.
    public var publishedUntil: Date?
    /// For an activation key after the first, the previous key's signature over this one
    /// (`ActivationKeyChain`); `nil` for every other key.
    public var endorsement: Data?

    public init(
        purpose: Components.Schemas.SigningKeyPurpose,
        kid: String,
        generation: Int64 = 1,
        sealedKey: Data,
        createdAt: Date,
        signsFrom: Date,
        publishedUntil: Date? = nil,
        endorsement: Data? = nil
    ) {
        self.purpose = purpose
        self.kid = kid
        self.generation = generation
        self.sealedKey = sealedKey
        self.createdAt = createdAt
        self.signsFrom = signsFrom
        self.publishedUntil = publishedUntil
        self.endorsement = endorsement
    }

    /// Whether the key is in the key set at `now`.
    public func isPublished(at now: Date) -> Bool {
        publishedUntil.map { $0 > now } ?? true
    }

    /// The key that signs at `now` among `keys` (one purpose's): the highest generation
    /// whose `signsFrom` has come.
    public static func signing(among keys: [SigningKeyRecord], at now: Date) -> SigningKeyRecord? {
        keys.filter { $0.signsFrom <= now }.max { $0.generation < $1.generation }
    }
}

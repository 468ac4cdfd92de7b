import Crypto
import Foundation

/// A P-256 key that data is sealed to (HPKE): the server's, that devices seal changes
/// to, or a user's, that the answers to their changes are sealed to.
public struct SealingPublicKey: Sendable, Hashable {
    let key: P256.KeyAgreement.PublicKey

    init(_ key: P256.KeyAgreement.PublicKey) {
        self.key = key
    }

    /// The key as it travels: the 65-byte uncompressed point.
    /// - Throws: ``ChangeKeyError/invalidKey`` when the bytes are not a P-256 point.
    public init(x963Representation: Data) throws(ChangeKeyError) {
        do {
            key = try P256.KeyAgreement.PublicKey(x963Representation: x963Representation)
        } catch {
            throw .invalidKey
        }
    }

    public var x963Representation: Data { key.x963Representation }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.x963Representation == rhs.x963Representation }
    public func hash(into hasher: inout Hasher) { hasher.combine(x963Representation) }
}

/// The private part of a ``SealingPublicKey``.
public struct SealingPrivateKey: Sendable {
    let key: P256.KeyAgreement.PrivateKey

    /// A new random key.
    public init() {
        key = P256.KeyAgreement.PrivateKey()
    }

    /// The key kept as ``rawRepresentation``.
    public init(rawRepresentation: Data) throws(ChangeKeyError) {
        do {
            key = try P256.KeyAgreement.PrivateKey(rawRepresentation: rawRepresentation)
        } catch {
            throw .invalidKey
        }
    }

    /// The 32 bytes to keep (the server seals them under its server key; a user's are
    /// in their encrypted store).
    public var rawRepresentation: Data { key.rawRepresentation }

    /// The part others seal to.
    public var publicKey: SealingPublicKey { SealingPublicKey(key.publicKey) }
}

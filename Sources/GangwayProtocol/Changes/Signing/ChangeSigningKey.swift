import Crypto
import Foundation

/// A user's key for signing their changes on one device: made at onboarding, kept in that
/// user's encrypted store, and used at once when a change is made (after a user switch
/// the author's store, and so their key, is locked).
public struct ChangeSigningKey: Sendable {
    private let key: P256.Signing.PrivateKey

    /// A new random key.
    public init() {
        key = P256.Signing.PrivateKey()
    }

    /// The key kept as ``rawRepresentation``.
    /// - Throws: ``ChangeKeyError/invalidKey`` when the bytes are not a P-256 private key.
    public init(rawRepresentation: Data) throws(ChangeKeyError) {
        do {
            key = try P256.Signing.PrivateKey(rawRepresentation: rawRepresentation)
        } catch {
            throw .invalidKey
        }
    }

    /// The 32 bytes to keep in the user's store.
    public var rawRepresentation: Data { key.rawRepresentation }

    /// The part the server is given, to check this key's signatures.
    public var verifyingKey: ChangeVerifyingKey { ChangeVerifyingKey(key.publicKey) }

    /// Signs `change`.
    public func sign(_ change: Change) -> SignedChange {
        // Signing with a valid key only fails if the system's random generator does.
        let signature = try! key.signature(for: change.signedBytes)
        return SignedChange(change: change, signature: signature.rawRepresentation)
    }
}

/// The public part of a ``ChangeSigningKey``, registered with the server.
public struct ChangeVerifyingKey: Sendable, Hashable {
    private let key: P256.Signing.PublicKey

    init(_ key: P256.Signing.PublicKey) {
        self.key = key
    }

    /// The key as registered: the 65-byte uncompressed point (ANSI X9.63).
    /// - Throws: ``ChangeKeyError/invalidKey`` when the bytes are not a P-256 public key.
    public init(x963Representation: Data) throws(ChangeKeyError) {
        do {
            key = try P256.Signing.PublicKey(x963Representation: x963Representation)
        } catch {
            throw .invalidKey
        }
    }

    /// The 65 bytes the server keeps.
    public var x963Representation: Data { key.x963Representation }

    /// Whether `signature` is this key's for exactly `change`.
    public func isValidSignature(_ signature: Data, for change: Change) -> Bool {
        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(signature, for: change.signedBytes)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.x963Representation == rhs.x963Representation }
    public func hash(into hasher: inout Hasher) { hasher.combine(x963Representation) }
}

/// A signing or verifying key that cannot be read. New cases may be added.
public struct ChangeKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: String
    public static let invalidKey = ChangeKeyError(code: "invalid-key")
    public var description: String { "the bytes are not a P-256 key" }
}

import Crypto
import Foundation

/// The server's activation keys, oldest first, each after the first endorsed by the one
/// before it: how a device that pinned an earlier key comes to trust the key that signs
/// activation links now.
///
/// A rotation (`gangway admin keys rotate activation`) makes a new key and signs it with
/// the key it replaces (``endorsement(of:by:)``). A link signed by a later key than the
/// first carries the chain (its `chain` item, ``encoded``), and a device accepts the link
/// when the key it pinned is in the chain: every endorsement is checked when the chain is
/// read, so each key after the pinned one was vouched for by the one before. The Update
/// Framework rotates its root keys the same way. A device may then pin the newest key, and
/// a key older than its pin no longer activates it.
///
/// The encoded form is the first key, compressed (33 bytes), then for each later key its
/// endorsement (64 bytes, raw `r‖s`) and the key (33 bytes).
public struct ActivationKeyChain: Sendable, Hashable {
    /// The keys, oldest first; never empty.
    public let keys: [P256.Signing.PublicKey]
    /// `endorsements[i]` is `keys[i]`'s signature over `keys[i + 1]`.
    public let endorsements: [P256.Signing.ECDSASignature]

    /// The most keys a chain holds: a bound on the work of reading a link, and on its
    /// length. The first key adds 51 characters to a link (with `&chain=`) and each later
    /// one about 130, so 8 keys take 957 of the 2,331 a QR code holds at error correction M;
    /// the server refuses a rotation past it unless the oldest key is dropped.
    public static let maximumKeys = 8

    /// Why a chain is refused. New codes may be added.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public struct Code: RawRepresentable, Sendable, Hashable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            /// The bytes are not a chain: a length that does not fit, or a key that is not
            /// a P-256 point.
            public static let malformed = Code(rawValue: "MALFORMED")
            /// An endorsement does not verify against the key before it.
            public static let notEndorsed = Code(rawValue: "NOT_ENDORSED")
            /// More keys than ``ActivationKeyChain/maximumKeys``.
            public static let tooLong = Code(rawValue: "TOO_LONG")
        }

        public let code: Code
        public let description: String

        public init(_ code: Code, _ description: String) {
            self.code = code
            self.description = description
        }
    }

    /// A chain of one key.
    public init(first: P256.Signing.PublicKey) {
        keys = [first]
        endorsements = []
    }

    /// A chain of `keys`, each after the first endorsed by `endorsements`' signature of the
    /// one before.
    /// - Throws: ``Failure`` when the counts do not match, the chain is too long, or an
    ///   endorsement does not verify.
    public init(keys: [P256.Signing.PublicKey], endorsements: [Data]) throws(Failure) {
        guard let first = keys.first, endorsements.count == keys.count - 1 else {
            throw Failure(.malformed, "a chain of activation keys needs one endorsement for each key after the first")
        }
        guard keys.count <= Self.maximumKeys else {
            throw Failure(.tooLong, "a chain holds at most \(Self.maximumKeys) activation keys")
        }
        var signatures: [P256.Signing.ECDSASignature] = []
        var previous = first
        for (key, endorsement) in zip(keys.dropFirst(), endorsements) {
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: endorsement),
                previous.isValidSignature(signature, for: Self.endorsedBytes(of: key, by: previous))
            else {
                throw Failure(.notEndorsed, "an activation key in the chain is not endorsed by the key before it")
            }
            signatures.append(signature)
            previous = key
        }
        self.keys = keys
        self.endorsements = signatures
    }

    /// Reads ``encoded`` bytes, checking every endorsement.
    /// - Throws: ``Failure``.
    public init(encoded: Data) throws(Failure) {
        let bytes = [UInt8](encoded)
        let keyLength = 33
        let stepLength = 64 + keyLength
        guard bytes.count >= keyLength, (bytes.count - keyLength) % stepLength == 0 else {
            throw Failure(.malformed, "the chain of activation keys has a length no chain has")
        }
        guard 1 + (bytes.count - keyLength) / stepLength <= Self.maximumKeys else {
            throw Failure(.tooLong, "a chain holds at most \(Self.maximumKeys) activation keys")
        }
        func key(at offset: Int) throws(Failure) -> P256.Signing.PublicKey {
            do {
                return try P256.Signing.PublicKey(compressedRepresentation: bytes[offset..<offset + keyLength])
            } catch {
                throw Failure(.malformed, "the chain of activation keys holds a key that is not a P-256 point")
            }
        }
        var keys = [try key(at: 0)]
        var endorsements: [Data] = []
        var offset = keyLength
        while offset < bytes.count {
            endorsements.append(Data(bytes[offset..<offset + 64]))
            keys.append(try key(at: offset + 64))
            offset += stepLength
        }
        try self.init(keys: keys, endorsements: endorsements)
    }

    /// The chain as a link carries it (base64url in its `chain` item).
    public var encoded: Data {
        var bytes = keys[0].compressedRepresentation
        for (key, endorsement) in zip(keys.dropFirst(), endorsements) {
            bytes.append(endorsement.rawRepresentation)
            bytes.append(key.compressedRepresentation)
        }
        return bytes
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.encoded == rhs.encoded }

    public func hash(into hasher: inout Hasher) { hasher.combine(encoded) }

    /// The key that signs: the newest.
    public var newest: P256.Signing.PublicKey { keys[keys.count - 1] }

    /// Whether `pinned` is one of the keys, so the chain leads from it to ``newest``.
    public func leads(from pinned: P256.Signing.PublicKey) -> Bool {
        let bytes = pinned.x963Representation
        return keys.contains { $0.x963Representation == bytes }
    }

    /// `previous`'s endorsement of `key`: its signature, raw `r‖s`, over
    /// ``endorsedBytes(of:by:)``.
    public static func endorsement(
        of key: P256.Signing.PublicKey,
        by previous: P256.Signing.PrivateKey
    ) throws -> Data {
        try previous.signature(for: endorsedBytes(of: key, by: previous.publicKey)).rawRepresentation
    }

    /// What an endorsement signs: a label of its own, so no other signature of the key
    /// (an activation payload, a token) can pass for one, then both keys (X9.63).
    static func endorsedBytes(of key: P256.Signing.PublicKey, by previous: P256.Signing.PublicKey) -> Data {
        var bytes = Data("gangway activation key endorsement v1\n".utf8)
        bytes.append(previous.x963Representation)
        bytes.append(key.x963Representation)
        return bytes
    }
}

import Crypto
import Foundation

/// Seals a signed change to the server, so any user of the device can carry it while no
/// other user, and no one reading the device's files, can read its values.
///
/// The plaintext is a zero byte, the signature (64 bytes) and the change's
/// ``Change/signedBytes``. Two forms carry it, both HPKE (RFC 9180) in base mode with
/// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and AES-256-GCM:
///
/// - **Shared** (what devices make): `0x02`, an encapsulated key (65 bytes), then
///   AES-256-GCM's nonce, ciphertext and tag under the key HPKE's exporter derives from
///   that encapsulation, authenticating the first 66 bytes. A device seals a run of one
///   author's changes under one encapsulation (``ChangeSealer``), so the server agrees
///   one key per run instead of one per change.
/// - **Single** (earlier versions): the encapsulated key, starting `0x04`, then HPKE's
///   own ciphertext. Changes sealed by still earlier versions hold the signed change's
///   JSON (which starts with `{`) instead of the binary plaintext; all of these still open.
///
/// Only the server's private key opens either; the signature inside still proves the
/// author.
public enum ChangeSeal {
    static let info = Data("gangway.change.sealed.v1".utf8)
    /// What the key a run of changes shares is exported for (the shared form).
    static let sharedInfo = Data("gangway.change.sealed.v2".utf8)
    static let sharedContext = Data("gangway.change.sealed-key.v2".utf8)
    /// The first byte of the shared form.
    static let sharedFormat: UInt8 = 2
    /// The shared form's header: its first byte and the encapsulated key.
    static let sharedHeaderLength = 1 + HPKESeal.encapsulatedKeyLength
    /// The most a sealed change can take: 64 fields of 1,024 characters of up to four
    /// bytes each, with room for the rest.
    public static let maximumLength = 300_000

    /// `signed`, sealed to `recipient` alone (the single form).
    public static func seal(_ signed: SignedChange, to recipient: SealingPublicKey) throws(ChangeSealError) -> Data {
        try HPKESeal.seal(try plaintext(signed), to: recipient, info: info)
    }

    /// `signed`, sealed under `key` (the shared form).
    static func seal(_ signed: SignedChange, under key: SharedSealingKey) throws(ChangeSealError) -> Data {
        let header = Data([sharedFormat]) + key.encapsulated
        do {
            let box = try AES.GCM.seal(try plaintext(signed), using: key.key, authenticating: header)
            guard let combined = box.combined else { throw ChangeSealError.sealingFailed }
            return header + combined
        } catch {
            throw .sealingFailed
        }
    }

    /// The signed change `sealed` holds, in either form.
    /// - Parameter sharedKeys: The keys ``sharedKeys(of:with:)`` derived for a batch
    ///   this change is in: a shared form whose key is not among them does not open (its
    ///   key did not derive), and is not tried again. `nil` derives the key here.
    /// - Throws: ``ChangeSealError/unreadable`` when it was not sealed to `key`, was
    ///   altered, or holds no change.
    public static func open(
        _ sealed: Data,
        with key: SealingPrivateKey,
        sharedKeys: [Data: SymmetricKey]? = nil
    ) throws(ChangeSealError) -> SignedChange {
        guard sealed.count <= maximumLength else { throw .unreadable }
        let plaintext: Data
        if let encapsulated = encapsulatedKey(of: sealed) {
            let shared: SymmetricKey
            if let sharedKeys {
                guard let known = sharedKeys[encapsulated] else { throw .unreadable }
                shared = known
            } else {
                shared = try sharedKey(encapsulated, key)
            }
            do {
                let box = try AES.GCM.SealedBox(combined: sealed.dropFirst(sharedHeaderLength))
                plaintext = try AES.GCM.open(box, using: shared, authenticating: sealed.prefix(sharedHeaderLength))
            } catch {
                throw .unreadable
            }
        } else {
            plaintext = try HPKESeal.open(sealed, with: key, info: info)
        }
        return try signedChange(in: plaintext)
    }

    /// The keys of the shared forms among `sealed`, derived once per encapsulated key;
    /// one that does not derive is left out (its change does not open).
    public static func sharedKeys(of sealed: [Data], with key: SealingPrivateKey) -> [Data: SymmetricKey] {
        var keys: [Data: SymmetricKey] = [:]
        var tried: Set<Data> = []
        for bytes in sealed {
            guard let encapsulated = encapsulatedKey(of: bytes), tried.insert(encapsulated).inserted else { continue }
            keys[encapsulated] = try? sharedKey(encapsulated, key)
        }
        return keys
    }

    /// A new key for sealing a run of changes to `recipient` (the shared form).
    static func newSharedKey(to recipient: SealingPublicKey) throws(ChangeSealError) -> SharedSealingKey {
        let shared = try HPKESeal.sharedKey(to: recipient, info: sharedInfo, context: sharedContext)
        return SharedSealingKey(recipient: recipient, encapsulated: shared.encapsulated, key: shared.key)
    }

    private static func sharedKey(
        _ encapsulated: Data,
        _ key: SealingPrivateKey
    ) throws(ChangeSealError) -> SymmetricKey {
        try HPKESeal.sharedKey(encapsulated: encapsulated, with: key, info: sharedInfo, context: sharedContext)
    }

    /// The encapsulated key of a change in the shared form; `nil` for the single form.
    private static func encapsulatedKey(of sealed: Data) -> Data? {
        guard sealed.first == sharedFormat, sealed.count > sharedHeaderLength else { return nil }
        return Data(sealed.dropFirst().prefix(HPKESeal.encapsulatedKeyLength))
    }

    private static func plaintext(_ signed: SignedChange) throws(ChangeSealError) -> Data {
        guard signed.signature.count == signatureLength else { throw .sealingFailed }
        var plaintext = Data([binaryFormat])
        plaintext.append(signed.signature)
        plaintext.append(signed.change.signedBytes)
        return plaintext
    }

    private static func signedChange(in plaintext: Data) throws(ChangeSealError) -> SignedChange {
        switch plaintext.first {
        case binaryFormat:
            let signature = plaintext.dropFirst().prefix(signatureLength)
            guard signature.count == signatureLength,
                let change = Change(signedBytes: Data(plaintext.dropFirst(1 + signatureLength)))
            else { throw .unreadable }
            return SignedChange(change: change, signature: Data(signature))
        case UInt8(ascii: "{"):
            let signed: SignedChange
            do {
                signed = try decoder.decode(SignedChange.self, from: plaintext)
            } catch {
                throw .unreadable
            }
            // A time no device makes, which the signed bytes cannot hold.
            guard LenientDateTranscoder.writableRange.contains(signed.change.madeAt.timeIntervalSince1970) else {
                throw .unreadable
            }
            return signed
        default:
            throw .unreadable
        }
    }

    /// The first byte of a change's plaintext in the binary form.
    static let binaryFormat: UInt8 = 0
    /// The length of a change's signature (raw `r‖s`).
    static let signatureLength = 64

    /// One encoder for every answer an outbox keeps (making one per answer cost as much
    /// as the encoding).
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()

    package static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}

/// Why a change could not be sealed or opened. New cases may be added.
public struct ChangeSealError: Error, Sendable, Hashable, CustomStringConvertible {
    let code: String
    /// Not sealed to this key, altered, cut short, or not a change.
    public static let unreadable = ChangeSealError(code: "unreadable")
    /// The system could not seal (its random generator failed).
    public static let sealingFailed = ChangeSealError(code: "sealing-failed")

    public var description: String {
        self == .unreadable ? "the sealed change cannot be opened" : "the change could not be sealed"
    }
}

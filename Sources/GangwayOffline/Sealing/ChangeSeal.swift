import Foundation

/// Seals a signed change to the server, so any user of the device can carry it while no
/// other user, and no one reading the device's files, can read its values.
///
/// HPKE (RFC 9180) in base mode with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and
/// AES-256-GCM, under an `info` naming the format: a sealed change is the encapsulated
/// key (65 bytes) followed by the ciphertext of a zero byte, the signature (64 bytes) and
/// the change's ``Change/signedBytes``. Changes sealed by earlier versions hold the signed
/// change's JSON instead (which starts with `{`), and still open. Only the server's
/// private key opens it; the signature inside still proves the author.
public enum ChangeSeal {
    static let info = Data("gangway.change.sealed.v1".utf8)
    /// The most a sealed change can take: 64 fields of 1,024 characters of up to four
    /// bytes each, with room for the rest.
    public static let maximumLength = 300_000

    /// `signed`, sealed to `recipient`.
    public static func seal(_ signed: SignedChange, to recipient: SealingPublicKey) throws(ChangeSealError) -> Data {
        guard signed.signature.count == signatureLength else { throw .sealingFailed }
        var plaintext = Data([binaryFormat])
        plaintext.append(signed.signature)
        plaintext.append(signed.change.signedBytes)
        return try HPKESeal.seal(plaintext, to: recipient, info: info)
    }

    /// The signed change `sealed` holds.
    /// - Throws: ``ChangeSealError/unreadable`` when it was not sealed to `key`, was
    ///   altered, or holds no change.
    public static func open(_ sealed: Data, with key: SealingPrivateKey) throws(ChangeSealError) -> SignedChange {
        guard sealed.count <= maximumLength else { throw .unreadable }
        let plaintext = try HPKESeal.open(sealed, with: key, info: info)
        switch plaintext.first {
        case binaryFormat:
            let signature = plaintext.dropFirst().prefix(signatureLength)
            guard signature.count == signatureLength,
                let change = Change(signedBytes: Data(plaintext.dropFirst(1 + signatureLength)))
            else { throw .unreadable }
            return SignedChange(change: change, signature: Data(signature))
        case UInt8(ascii: "{"):
            do {
                return try decoder.decode(SignedChange.self, from: plaintext)
            } catch {
                throw .unreadable
            }
        default:
            throw .unreadable
        }
    }

    /// The first byte of a change sealed in the binary form.
    static let binaryFormat: UInt8 = 0
    /// The length of a change's signature (raw `r‖s`).
    static let signatureLength = 64

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
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

import Crypto
import Foundation

/// HPKE (RFC 9180) in base mode with DHKEM(P-256, HKDF-SHA256), HKDF-SHA256 and
/// AES-256-GCM: the encapsulated key (65 bytes), then the ciphertext. `info` names what
/// is sealed, so a box of one kind never opens as another.
package enum HPKESeal {
    package static let suite = HPKE.Ciphersuite.P256_SHA256_AES_GCM_256
    package static let encapsulatedKeyLength = 65

    package static func seal(
        _ plaintext: Data,
        to recipient: SealingPublicKey,
        info: Data
    ) throws(ChangeSealError) -> Data {
        do {
            var sender = try HPKE.Sender(recipientKey: recipient.key, ciphersuite: suite, info: info)
            let ciphertext = try sender.seal(plaintext)
            return sender.encapsulatedKey + ciphertext
        } catch {
            throw .sealingFailed
        }
    }

    package static func open(_ sealed: Data, with key: SealingPrivateKey, info: Data) throws(ChangeSealError) -> Data {
        guard sealed.count > encapsulatedKeyLength else { throw .unreadable }
        do {
            var recipient = try HPKE.Recipient(
                privateKey: key.key,
                ciphersuite: suite,
                info: info,
                encapsulatedKey: Data(sealed.prefix(encapsulatedKeyLength))
            )
            return try recipient.open(Data(sealed.dropFirst(encapsulatedKeyLength)))
        } catch {
            throw .unreadable
        }
    }

    /// A key for sealing many boxes to one recipient with one encapsulation: HPKE's
    /// exporter (RFC 9180 §5.3) under `info`, for `context`. Only the recipient derives it
    /// again, from `encapsulated`.
    package static func sharedKey(
        to recipient: SealingPublicKey,
        info: Data,
        context: Data
    ) throws(ChangeSealError) -> (encapsulated: Data, key: SymmetricKey) {
        do {
            let sender = try HPKE.Sender(recipientKey: recipient.key, ciphersuite: suite, info: info)
            return (sender.encapsulatedKey, try sender.exportSecret(context: context, outputByteCount: 32))
        } catch {
            throw .sealingFailed
        }
    }

    /// The key ``sharedKey(to:info:context:)`` made, derived by its recipient.
    package static func sharedKey(
        encapsulated: Data,
        with key: SealingPrivateKey,
        info: Data,
        context: Data
    ) throws(ChangeSealError) -> SymmetricKey {
        guard encapsulated.count == encapsulatedKeyLength else { throw .unreadable }
        do {
            let recipient = try HPKE.Recipient(
                privateKey: key.key,
                ciphersuite: suite,
                info: info,
                encapsulatedKey: encapsulated
            )
            return try recipient.exportSecret(context: context, outputByteCount: 32)
        } catch {
            throw .unreadable
        }
    }
}

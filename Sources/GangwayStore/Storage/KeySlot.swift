import Crypto
import Foundation

/// One wrapped copy of a store's data key.
///
/// The data key exists only wrapped: by a key derived from the passcode, by a biometric
/// key, by the device key in no-passcode mode, or by a recovery key the server keeps. Unwrapping is AES-GCM authenticated
/// decryption, so a wrong passcode is simply a failed unwrap and no passcode hash is
/// ever stored. The associated data binds the slot kind, the store ID and the
/// derivation parameters, so lowering the rounds of a slot breaks it rather than
/// weakening it.
struct KeySlot: Sendable, Hashable, Codable {
    enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case passcode
        case biometric
        case device
        case recovery
    }

    var kind: Kind
    var derivation: PasscodeKeyDerivation?
    var wrappedKey: Data

    static func wrap(
        _ dataKey: SymmetricKey,
        kind: Kind,
        derivation: PasscodeKeyDerivation?,
        with wrappingKey: SymmetricKey,
        storeID: UUID
    ) throws(SecureStoreError) -> KeySlot {
        let aad = associatedData(kind: kind, derivation: derivation, storeID: storeID)
        let plaintext = dataKey.withUnsafeBytes { Data($0) }
        do {
            guard let sealed = try AES.GCM.seal(plaintext, using: wrappingKey, authenticating: aad).combined else {
                throw SecureStoreError.ioFailure("wrapping the data key failed")
            }
            return KeySlot(kind: kind, derivation: derivation, wrappedKey: sealed)
        } catch {
            throw .ioFailure("wrapping the data key failed")
        }
    }

    /// The data key, or `nil` when the wrapping key is not the right one.
    func unwrap(with wrappingKey: SymmetricKey, storeID: UUID) -> SymmetricKey? {
        let aad = Self.associatedData(kind: kind, derivation: derivation, storeID: storeID)
        guard let box = try? AES.GCM.SealedBox(combined: wrappedKey),
            let key = try? AES.GCM.open(box, using: wrappingKey, authenticating: aad),
            key.count == 32
        else { return nil }
        return SymmetricKey(data: key)
    }

    private static func associatedData(kind: Kind, derivation: PasscodeKeyDerivation?, storeID: UUID) -> Data {
        var data = Data("gangway.slot.v\(StoreFormat.version).\(kind.rawValue)".utf8)
        data.append(storeID.bytes)
        if let derivation {
            data.append(Data("|\(derivation.algorithm)|\(derivation.rounds)|".utf8))
            data.append(derivation.salt)
        }
        return data
    }
}

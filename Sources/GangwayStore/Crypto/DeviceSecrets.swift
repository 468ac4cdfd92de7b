import Crypto
import Foundation

/// Keys derived from a store's device key, which lives in the ``DeviceKeyStore`` (the
/// keychain's role) rather than beside the data.
///
/// The record key authenticates the records that must be readable before unlock (the
/// header with the policy, the key slots, the failed-attempt count), so they cannot be
/// edited to raise the retry limit, reset the count or weaken a slot. The wrap key
/// protects the data key in no-passcode mode.
struct DeviceSecrets: Sendable {
    let recordKey: SymmetricKey
    let wrapKey: SymmetricKey
    let storeID: UUID

    static let keyByteCount = 32

    init(deviceKey: Data, storeID: UUID) throws(SecureStoreError) {
        guard deviceKey.count == Self.keyByteCount else {
            throw .integrityFailure("the device key has the wrong size")
        }
        let key = SymmetricKey(data: deviceKey)
        func derive(_ label: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: key,
                salt: storeID.bytes,
                info: Data("gangway.device.v\(StoreFormat.version).\(label)".utf8),
                outputByteCount: 32
            )
        }
        recordKey = derive("records")
        wrapKey = derive("wrap")
        self.storeID = storeID
    }

    /// The name of a store's device key in the device key store.
    static func deviceKeyName(for storeID: UUID) -> String {
        "gangway.store.\(storeID.uuidString.lowercased()).device"
    }

    /// The name of a store's biometric key in the device key store.
    static func biometricKeyName(for storeID: UUID) -> String {
        "gangway.store.\(storeID.uuidString.lowercased()).biometric"
    }

    func mac(record kind: String, _ body: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: macInput(kind, body), using: recordKey))
    }

    func verify(record kind: String, _ body: Data, mac: Data) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: macInput(kind, body), using: recordKey)
    }

    private func macInput(_ kind: String, _ body: Data) -> Data {
        var data = Data("gangway.record.v\(StoreFormat.version).\(kind)".utf8)
        data.append(storeID.bytes)
        data.append(body)
        return data
    }
}

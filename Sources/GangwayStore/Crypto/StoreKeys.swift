import Crypto
import Foundation

/// The keys derived from a store's data-encryption key, and the sealing of entries.
///
/// Every value is sealed with AES-GCM under the value key. Its associated data binds the
/// format version, the store ID and the entry's tag, so a value copied to another key
/// or into another store fails to open. Entry names are stored as HMAC tags under a
/// separate index key, with an encrypted copy for listing.
struct StoreKeys: Sendable {
    let dataKey: SymmetricKey
    let valueKey: SymmetricKey
    let indexKey: SymmetricKey
    let historyKey: SymmetricKey
    let storeID: UUID

    init(dataKey: SymmetricKey, storeID: UUID) {
        self.dataKey = dataKey
        self.storeID = storeID
        let salt = storeID.bytes
        func derive(_ label: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: dataKey,
                salt: salt,
                info: Data("gangway.store.v\(StoreFormat.version).\(label)".utf8),
                outputByteCount: 32
            )
        }
        valueKey = derive("value")
        indexKey = derive("index")
        historyKey = derive("passcode-history")
    }

    /// A new random data key.
    static func generateDataKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// The lookup tag of an entry name.
    func tag(forName name: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(name.utf8), using: indexKey))
    }

    func sealValue(_ value: Data, tag: Data) throws(SecureStoreError) -> Data {
        try seal(value, associatedData: associatedData("value", tag))
    }

    func openValue(_ sealed: Data, tag: Data) throws(SecureStoreError) -> Data {
        try open(sealed, associatedData: associatedData("value", tag), what: "a value")
    }

    func sealName(_ name: String, tag: Data) throws(SecureStoreError) -> Data {
        try seal(Data(name.utf8), associatedData: associatedData("name", tag))
    }

    func openName(_ sealed: Data, tag: Data) throws(SecureStoreError) -> String {
        let bytes = try open(sealed, associatedData: associatedData("name", tag), what: "a key name")
        guard let name = String(data: bytes, encoding: .utf8), self.tag(forName: name) == tag else {
            throw .integrityFailure("a key name does not match its tag")
        }
        return name
    }

    /// A keyed fingerprint of a passcode for the reuse rule, only computable with the data
    /// key, so the history gives an attacker without the key nothing to test guesses on.
    func historyFingerprint(of passcode: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Passcode.bytes(passcode), using: historyKey))
    }

    private func associatedData(_ kind: String, _ tag: Data) -> Data {
        var data = Data("gangway.store.v\(StoreFormat.version).\(kind)".utf8)
        data.append(storeID.bytes)
        data.append(tag)
        return data
    }

    private func seal(_ plaintext: Data, associatedData: Data) throws(SecureStoreError) -> Data {
        do {
            guard let combined = try AES.GCM.seal(plaintext, using: valueKey, authenticating: associatedData).combined
            else { throw SecureStoreError.ioFailure("sealing failed") }
            return combined
        } catch {
            throw .ioFailure("sealing failed")
        }
    }

    private func open(_ sealed: Data, associatedData: Data, what: String) throws(SecureStoreError) -> Data {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: valueKey, authenticating: associatedData)
        } catch {
            throw .integrityFailure("\(what) failed authentication")
        }
    }
}

extension UUID {
    /// The 16 bytes of the UUID.
    var bytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }
}

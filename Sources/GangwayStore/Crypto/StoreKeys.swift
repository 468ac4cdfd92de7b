import Crypto
import Foundation

/// The keys derived from a store's data-encryption key, and the sealing of entries.
///
/// Every entry (its name and value together) is sealed with AES-GCM under the value key.
/// The associated data binds the format version, the store ID and the entry's tag, so an
/// entry copied to another key or into another store fails to open. Entries are looked up
/// by an HMAC tag of the name under a separate index key; the name itself is only inside
/// the sealed box, for listing.
struct StoreKeys: Sendable {
    let dataKey: SymmetricKey
    let valueKey: SymmetricKey
    let indexKey: SymmetricKey
    let historyKey: SymmetricKey
    let storeID: UUID
    /// HMAC already keyed with the index key: copying it skips re-keying per tag.
    private let keyedIndexMAC: HMAC<SHA256>
    private let entryAssociatedDataPrefix: Data

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
        keyedIndexMAC = HMAC<SHA256>(key: indexKey)
        entryAssociatedDataPrefix = Self.associatedDataPrefix("entry", storeID: storeID)
    }

    /// A new random data key.
    static func generateDataKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// The lookup tag of an entry name: HMAC-SHA256 under the index key, truncated to
    /// 128 bits (ample for lookups; the tag is not what authenticates the entry).
    func tag(forName name: String) -> Data {
        var mac = keyedIndexMAC
        mac.update(data: Data(name.utf8))
        return Data(mac.finalize().prefix(16))
    }

    /// Seals an entry: its name and value in one AES-GCM box, bound to the tag.
    func sealEntry(name: String, value: Data, tag: Data) throws(SecureStoreError) -> Data {
        let nameBytes = Data(name.utf8)
        guard nameBytes.count <= Int(UInt16.max) else { throw .invalidArgument("the key name is too long") }
        var plaintext = Data(capacity: 2 + nameBytes.count + value.count)
        plaintext.append(UInt8(nameBytes.count >> 8))
        plaintext.append(UInt8(nameBytes.count & 0xFF))
        plaintext.append(nameBytes)
        plaintext.append(value)
        return try seal(plaintext, associatedData: entryAssociatedDataPrefix + tag)
    }

    /// Opens an entry, checking that the name inside is the one its tag was made from.
    func openEntry(_ sealed: Data, tag: Data) throws(SecureStoreError) -> (name: String, value: Data) {
        let plaintext = try open(sealed, associatedData: entryAssociatedDataPrefix + tag, what: "a value")
        guard plaintext.count >= 2 else { throw .integrityFailure("an entry is malformed") }
        let start = plaintext.startIndex
        let length = Int(plaintext[start]) << 8 | Int(plaintext[start + 1])
        guard plaintext.count >= 2 + length,
            let name = String(data: plaintext[(start + 2)..<(start + 2 + length)], encoding: .utf8),
            self.tag(forName: name) == tag
        else {
            throw .integrityFailure("an entry does not match its key")
        }
        return (name, Data(plaintext[(start + 2 + length)...]))
    }

    /// A keyed fingerprint of a passcode for the reuse rule, only computable with the data
    /// key, so the history gives an attacker without the key nothing to test guesses on.
    func historyFingerprint(of passcode: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Passcode.bytes(passcode), using: historyKey))
    }

    private static func associatedDataPrefix(_ kind: String, storeID: UUID) -> Data {
        var data = Data("gangway.store.v\(StoreFormat.version).\(kind)".utf8)
        data.append(storeID.bytes)
        return data
    }

    private func seal(_ plaintext: Data, associatedData: Data) throws(SecureStoreError) -> Data {
        do {
            let nonce = NoncePool.shared.next()
            guard
                let combined = try AES.GCM.seal(
                    plaintext,
                    using: valueKey,
                    nonce: nonce,
                    authenticating: associatedData
                )
                .combined
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

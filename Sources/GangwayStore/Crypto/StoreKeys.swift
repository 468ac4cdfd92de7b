import Crypto
import Foundation
import GangwayPolicy

/// The keys derived from a store's data-encryption key, and the sealing of entries.
///
/// Every entry (its name and value together) is sealed with AES-GCM under the value key,
/// which HKDF derives from the data key with the store ID as salt and the format version
/// in its label: an entry copied into another store, or read by another format, meets a
/// different key and fails to open. The associated data is the entry's tag, so an entry
/// copied to another key fails too. Entries are looked up by an HMAC tag of the name under
/// a separate index key; the name itself is only inside the sealed box, for listing.
struct StoreKeys: Sendable {
    let dataKey: SymmetricKey
    let valueKey: SymmetricKey
    let indexKey: SymmetricKey
    let historyKey: SymmetricKey
    let storeID: UUID
    /// HMAC already keyed with the index key: copying it skips re-keying per tag.
    private let keyedIndexMAC: HMAC<SHA256>

    /// Bytes of a tag.
    static let tagSize = 16

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
    }

    /// A new random data key.
    static func generateDataKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// The lookup tag of an entry name: HMAC-SHA256 under the index key, truncated to
    /// 128 bits (ample for lookups; the tag is not what authenticates the entry).
    func tag(forName name: String) -> Data {
        var mac = keyedIndexMAC
        var name = name
        name.withUTF8 { mac.update(data: UnsafeRawBufferPointer($0)) }
        return mac.finalize().withUnsafeBytes { Data($0.prefix(Self.tagSize)) }
    }

    /// Seals an entry: its name and value in one AES-GCM box, bound to the tag.
    ///
    /// The plaintext is the name's length (two bytes, big-endian), the name, then the value.
    /// `nonce` must be fresh random bytes, never used before under this store's key.
    func sealEntry(name: String, value: Data, tag: Data, nonce: AES.GCM.Nonce) throws(SecureStoreError) -> Data {
        var name = name
        let plaintext = name.withUTF8 { nameBytes -> [UInt8]? in
            guard nameBytes.count <= Self.maximumNameBytes else { return nil }
            var plaintext: [UInt8] = []
            plaintext.reserveCapacity(2 + nameBytes.count + value.count)
            plaintext.append(UInt8(nameBytes.count >> 8))
            plaintext.append(UInt8(nameBytes.count & 0xFF))
            plaintext.append(contentsOf: nameBytes)
            value.withUnsafeBytes { plaintext.append(contentsOf: $0) }
            return plaintext
        }
        guard let plaintext else { throw .invalidArgument("the key name is too long") }
        do {
            let box = try AES.GCM.seal(plaintext, using: valueKey, nonce: nonce, authenticating: tag)
            guard let combined = box.combined else { throw SecureStoreError.ioFailure("sealing failed") }
            return combined
        } catch {
            throw .ioFailure("sealing failed")
        }
    }

    /// The longest entry name, in UTF-8 bytes.
    static let maximumNameBytes = Int(UInt16.max)

    /// Opens an entry. The box authenticates against `tag`, so it was sealed for that tag;
    /// callers that looked the entry up by name still compare the name inside with it.
    func openEntry(_ sealed: Data, tag: Data) throws(SecureStoreError) -> (name: String, value: Data) {
        let plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            plaintext = try AES.GCM.open(box, using: valueKey, authenticating: tag)
        } catch {
            throw .integrityFailure("a value failed authentication")
        }
        guard plaintext.count >= 2 else { throw .integrityFailure("an entry is malformed") }
        let start = plaintext.startIndex
        let length = Int(plaintext[start]) << 8 | Int(plaintext[start + 1])
        guard plaintext.count >= 2 + length,
            let name = String(data: plaintext[(start + 2)..<(start + 2 + length)], encoding: .utf8)
        else {
            throw .integrityFailure("an entry does not match its key")
        }
        return (name, Data(plaintext[(start + 2 + length)...]))
    }

    /// A keyed fingerprint of a passcode for the reuse rule, only computable with the data
    /// key, so the history gives an attacker without the key nothing to test guesses on.
    func historyFingerprint(of passcode: Secret) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Passcode.bytes(passcode), using: historyKey))
    }
}

extension UUID {
    /// The 16 bytes of the UUID.
    var bytes: Data {
        withUnsafeBytes(of: uuid) { Data($0) }
    }
}

extension SecureStore {
    /// Why `key` cannot name a value (it is empty, or longer than 65,535 UTF-8 bytes);
    /// `nil` when it can. A put checks it; a command line can before it asks a passcode.
    public static func problem(withKey key: String) -> String? {
        if key.isEmpty { return "a key name cannot be empty" }
        if key.utf8.count > StoreKeys.maximumNameBytes { return "the key name is too long" }
        return nil
    }
}

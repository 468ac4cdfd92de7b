import Crypto
import Foundation
import GRDB
import GangwaySystem
import Logging

/// A recovery key lets a user who forgot the passcode keep their data: the data key is
/// also wrapped by a key derived from a secret that only the server holds and hands out
/// after the same user signs in again. Without that secret the slot is as strong as the
/// data key itself; the device alone cannot open it.
extension SecureStore {
    /// The fewest bytes a recovery secret may have.
    public static let recoveryKeyByteCount = 32

    /// Wraps the data key with `secret` in a recovery slot, replacing any earlier one.
    ///
    /// - Throws: ``SecureStoreError/invalidArgument`` when the secret is shorter than
    ///   ``recoveryKeyByteCount`` bytes.
    public func setRecoveryKey(_ secret: Data) throws(SecureStoreError) {
        try checkOpen()
        let wrappingKey = try Self.recoveryWrappingKey(secret, storeID: id)
        let slot = try KeySlot.wrap(storeKeys.dataKey, kind: .recovery, derivation: nil, with: wrappingKey, storeID: id)
        let secrets = self.secrets
        try database.write { db in try StoreRecords.writeSlot(slot, db, secrets: secrets) }
        location.logger.info("recovery key set", metadata: ["store": "\(id)"])
    }

    /// Destroys the recovery slot, if there is one.
    public func removeRecoveryKey() throws(SecureStoreError) {
        try checkOpen()
        try database.write { db in try StoreRecords.deleteSlot(.recovery, db) }
    }

    /// Whether the store has a recovery slot.
    public var hasRecoveryKey: Bool {
        get throws(SecureStoreError) {
            try checkOpen()
            let secrets = self.secrets
            return try database.read { db in try StoreRecords.slots(db, secrets: secrets)[.recovery] != nil }
        }
    }

    static func recoveryWrappingKey(_ secret: Data, storeID: UUID) throws(SecureStoreError) -> SymmetricKey {
        guard secret.count >= recoveryKeyByteCount else {
            throw .invalidArgument("a recovery key needs at least \(recoveryKeyByteCount) bytes")
        }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: secret),
            salt: storeID.bytes,
            info: Data("gangway.recovery.v\(StoreFormat.version)".utf8),
            outputByteCount: 32
        )
    }
}

extension SecureStoreLocation {
    /// Opens the store with its recovery key, for a user who forgot the passcode and has
    /// signed in again. The failed-attempt count is cleared; the caller then sets a new
    /// passcode with ``SecureStore/setPasscode(_:policy:)``. A store whose last passcode
    /// try was spent is erased instead, as that try would have erased it.
    ///
    /// - Throws: ``SecureStoreError/recoveryNotSet`` when the store has no recovery slot,
    ///   ``SecureStoreError/recoveryKeyRejected`` when the secret does not open it,
    ///   ``SecureStoreError/erased`` when the last passcode try was spent.
    public func unlock(recoveryKey secret: Data) throws(SecureStoreError) -> SecureStore {
        try unlockVerified(by: "recovery key", level: .notice) { opened in
            let wrappingKey = try SecureStore.recoveryWrappingKey(secret, storeID: opened.header.storeID)
            let lock = try attemptLock()
            defer { lock.release() }
            guard let slot = try requireSlots(opened)[.recovery] else { throw SecureStoreError.recoveryNotSet }
            try eraseIfRetryLimitReached(opened)
            guard let dataKey = slot.unwrap(with: wrappingKey, storeID: opened.header.storeID) else {
                throw SecureStoreError.recoveryKeyRejected
            }
            try opened.database.write { try StoreRecords.writeLockout(.cleared, $0, secrets: opened.secrets) }
            return dataKey
        }
    }
}

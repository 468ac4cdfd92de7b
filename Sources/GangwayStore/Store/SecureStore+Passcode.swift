import Crypto
import Foundation
import GRDB
import GangwayPolicy
import Logging
import Synchronization

extension SecureStore {
    /// Checks a candidate new passcode against the policy and, for the reuse rule,
    /// against this store's passcode history.
    public func evaluateNewPasscode(
        _ passcode: Secret,
        policy: PasscodePolicy? = nil
    ) throws(SecureStoreError)
        -> PasscodeEvaluation
    {
        try checkOpen()
        let policy = policy ?? self.policy ?? .standard
        var results = policy.evaluate(passcode).results
        if policy.historyCount > 0 {
            let fingerprint = storeKeys.historyFingerprint(of: passcode)
            let recent = try database.read { db in
                try Data.fetchAll(
                    db,
                    sql: "SELECT sealed FROM passcodeHistory ORDER BY position DESC LIMIT ?",
                    arguments: [policy.historyCount]
                )
            }
            results.append(
                PasscodeRuleResult(
                    rule: .notRecentlyUsed(policy.historyCount),
                    isSatisfied: !recent.contains(fingerprint)
                )
            )
        }
        return PasscodeEvaluation(results: results)
    }

    /// Changes the passcode.
    ///
    /// The current passcode is verified like an unlock (it counts against the retry
    /// limit). The new one must meet the policy. The data key is re-wrapped in one
    /// transaction, so the cost does not grow with the store and a crash at any point
    /// leaves either the old or the new passcode working.
    public func changePasscode(current: Secret, new: Secret) throws(SecureStoreError) {
        try checkOpen()
        guard header.protection == .passcode else { throw .passcodeNotSet }
        try verifyPasscode(current)
        try setPasscode(new, policy: nil)
        location.logger.info("passcode changed", metadata: ["store": "\(id)"])
    }

    /// Checks the passcode of the open store, as an unlock does: a wrong one counts
    /// against the retry limit, and at the limit the store is erased and closed. Used to
    /// unlock an app that comes back from the background without reopening the store.
    ///
    /// - Throws: ``SecureStoreError/wrongPasscode`` with the tries left,
    ///   ``SecureStoreError/tryAgainLater`` during a lockout delay,
    ///   ``SecureStoreError/erased`` at the retry limit.
    public func verifyPasscode(_ passcode: Secret) throws(SecureStoreError) {
        try checkOpen()
        guard header.protection == .passcode else { throw .passcodeNotSet }
        let opened = SecureStoreLocation.OpenedStore(database: database, header: header, secrets: secrets)
        let dataKey: SymmetricKey
        do {
            dataKey = try location.verifyPasscode(passcode, in: opened)
        } catch let error where error == .erased {
            state.withLock { $0.isClosed = true }
            throw error
        }
        guard dataKey.withUnsafeBytes({ Data($0) }) == storeKeys.dataKey.withUnsafeBytes({ Data($0) }) else {
            throw .integrityFailure("the passcode slot holds another data key")
        }
    }

    /// Sets a passcode on a store in no-passcode mode, or replaces the passcode of an
    /// unlocked store without asking for the current one (for flows that have just
    /// verified it, such as a forced change after a policy update).
    ///
    /// - Parameter policy: A new policy to record with the passcode; the store's policy
    ///   when `nil`.
    ///
    /// The new passcode is written only while the store's passcode is still the one it was
    /// unlocked with: of two changes at once (two processes on one store), one is made and
    /// the other throws ``SecureStoreError/passcodeChangedElsewhere``, rather than both
    /// saying they were made.
    public func setPasscode(_ passcode: Secret, policy newPolicy: PasscodePolicy?) throws(SecureStoreError) {
        try checkOpen()
        // A new policy is checked; the store's own was checked when it was recorded, and
        // a store made under older limits keeps working.
        var policy = self.policy ?? .standard
        if let newPolicy {
            do {
                policy = try newPolicy.validated()
            } catch {
                throw .invalidArgument(error.description)
            }
        }
        let evaluation = try evaluateNewPasscode(passcode, policy: policy)
        guard evaluation.isAcceptable else { throw .passcodeRejected(evaluation.failedRules) }

        let derivation = PasscodeKeyDerivation.fresh(rounds: environment.passcodeRounds)
        let kek = try derivation.deriveKey(from: passcode)
        let slot = try KeySlot.wrap(storeKeys.dataKey, kind: .passcode, derivation: derivation, with: kek, storeID: id)
        var header = self.header
        let wasDeviceProtected = header.protection == .device
        header.protection = .passcode
        header.policy = policy
        header.passcodeSetAt = environment.now()
        let fingerprint = storeKeys.historyFingerprint(of: passcode)
        let finalHeader = header
        let location = self.location
        let secrets = self.secrets
        let known = state.withLock { $0.passcodeSlot }
        try database.write { db in
            if let known, try StoreRecords.slots(db, secrets: secrets)[.passcode] != known {
                throw SecureStoreError.passcodeChangedElsewhere
            }
            try StoreRecords.writeSlot(slot, db, secrets: secrets)
            try location.fault(.passcodeSlotWritten)
            if wasDeviceProtected {
                try StoreRecords.deleteSlot(.device, db)
                try StoreRecords.writeLockout(.cleared, db, secrets: secrets)
            }
            try StoreRecords.writeHeader(finalHeader, db, secrets: secrets)
            try location.fault(.passcodeHeaderWritten)
            try StoreRecords.addToPasscodeHistory(fingerprint, keeping: policy.historyCount, db)
            try location.fault(.passcodeHistoryWritten)
        }
        state.withLock {
            $0.header = finalHeader
            $0.passcodeSlot = .some(slot)
        }
        try location.fault(.passcodeCommitted)
    }

    /// Turns the passcode off (the server's policy no longer asks for one): the data key
    /// is re-wrapped by the device key and the passcode and biometric slots are destroyed.
    public func removePasscode() throws(SecureStoreError) {
        try checkOpen()
        var header = self.header
        guard header.protection == .passcode else { throw .passcodeNotSet }
        let slot = try KeySlot.wrap(
            storeKeys.dataKey,
            kind: .device,
            derivation: nil,
            with: secrets.wrapKey,
            storeID: id
        )
        header.protection = .device
        header.biometricsEnabled = false
        header.passcodeSetAt = nil
        header.policy = nil
        let finalHeader = header
        let secrets = self.secrets
        try database.write { db in
            try StoreRecords.writeSlot(slot, db, secrets: secrets)
            try StoreRecords.deleteSlot(.passcode, db)
            try StoreRecords.deleteSlot(.biometric, db)
            try StoreRecords.writeHeader(finalHeader, db, secrets: secrets)
            try db.execute(sql: "DELETE FROM passcodeHistory")
        }
        try? environment.deviceKeys.delete(DeviceSecrets.biometricKeyName(for: id))
        state.withLock {
            $0.header = finalHeader
            $0.passcodeSlot = .some(nil)
        }
        location.logger.notice("passcode turned off", metadata: ["store": "\(id)"])
    }

    /// Records a new policy (for example one downloaded from the server) without changing
    /// the passcode. A stricter retry limit or delay applies from the next unlock; turning
    /// biometrics off in the policy turns biometric unlock off now.
    ///
    /// Whether the current passcode meets the new rules cannot be known without it; the
    /// flow that applies a policy asks for a passcode change when the rules changed.
    public func updatePolicy(_ newPolicy: PasscodePolicy) throws(SecureStoreError) {
        try checkOpen()
        let policy: PasscodePolicy
        do {
            policy = try newPolicy.validated()
        } catch {
            throw .invalidArgument(error.description)
        }
        var header = self.header
        guard header.protection == .passcode else { throw .passcodeNotSet }
        header.policy = policy
        let disableBiometrics = header.biometricsEnabled && !policy.allowsBiometrics
        if disableBiometrics { header.biometricsEnabled = false }
        let finalHeader = header
        let secrets = self.secrets
        try database.write { db in
            if disableBiometrics { try StoreRecords.deleteSlot(.biometric, db) }
            try StoreRecords.writeHeader(finalHeader, db, secrets: secrets)
        }
        if disableBiometrics { try? environment.deviceKeys.delete(DeviceSecrets.biometricKeyName(for: id)) }
        state.withLock { $0.header = finalHeader }
    }
}

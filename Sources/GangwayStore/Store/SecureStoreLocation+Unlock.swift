import Crypto
import Dispatch
import Foundation
import GRDB
import GangwayPolicy
import GangwaySystem
import Logging
import Synchronization

extension SecureStoreLocation {
    /// An opened database with its verified header and device secrets.
    struct OpenedStore {
        let database: StoreDatabase
        let header: StoreHeader
        let secrets: DeviceSecrets
    }

    /// Opens the database and verifies the header, finishing an interrupted erase.
    func openVerified() throws(SecureStoreError) -> OpenedStore {
        let database = try StoreDatabase.open(in: directory)
        do {
            return try verify(database)
        } catch {
            try? database.pool.close()
            throw error
        }
    }

    private func verify(_ database: StoreDatabase) throws(SecureStoreError) -> OpenedStore {
        let unverified = try database.read { db in try StoreRecords.unverifiedHeader(db).header }
        if let expectedStoreID, unverified.storeID != expectedStoreID {
            throw .integrityFailure("the store in this directory has another ID")
        }
        let secrets: DeviceSecrets
        do {
            secrets = try loadSecrets(for: unverified.storeID)
        } catch {
            // An erase that destroyed the slots and the device key, then stopped: finish it.
            if error == .deviceKeyMissing, try slotCount(database) == 0 {
                try erase(database, storeID: unverified.storeID)
                throw .erased("its keys were already destroyed, so nothing could open it")
            }
            throw error
        }
        let header = try database.read { db in try StoreRecords.header(db, secrets: secrets) }
        return OpenedStore(database: database, header: header, secrets: secrets)
    }

    private func slotCount(_ database: StoreDatabase) throws(SecureStoreError) -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM keySlot") ?? 0 }
    }

    /// Unlocks a passcode-protected store.
    ///
    /// The failed-attempt count is raised and synced before the derived key is compared
    /// (the derivation runs meanwhile, on another thread), and cleared only when the
    /// passcode is right, so stopping the process at any point before the answer does not
    /// give a free guess. A slot derived with fewer rounds than the environment's
    /// is re-wrapped with the new cost.
    ///
    /// - Throws: ``SecureStoreError/wrongPasscode`` with ``SecureStoreError/triesLeft``;
    ///   ``SecureStoreError/erased`` when that was the last try (the store is gone);
    ///   ``SecureStoreError/tryAgainLater`` during a lockout delay;
    ///   ``SecureStoreError/tampered`` when the attempt record was altered.
    public func unlock(passcode: Secret) throws(SecureStoreError) -> SecureStore {
        var verified: KeySlot?
        let store = try unlockVerified(by: "passcode") { opened in
            guard opened.header.protection == .passcode else { throw SecureStoreError.passcodeNotSet }
            let (dataKey, slot) = try verifiedPasscode(passcode, in: opened)
            verified =
                try upgradeKeyDerivationIfNeeded(passcode: passcode, dataKey: dataKey, in: opened) ?? slot
            return dataKey
        }
        // The slot the passcode opened, not one read after: a change another process made
        // meanwhile is then noticed by the next passcode change here.
        store.state.withLock { $0.passcodeSlot = .some(verified) }
        return store
    }

    /// Unlocks a store in no-passcode mode with its device key.
    public func unlockWithoutPasscode() throws(SecureStoreError) -> SecureStore {
        try unlockVerified(by: "device key") { opened in
            guard opened.header.protection == .device else { throw SecureStoreError.passcodeRequired }
            let slot = try requireSlots(opened)[.device]!
            guard let dataKey = slot.unwrap(with: opened.secrets.wrapKey, storeID: opened.header.storeID) else {
                throw SecureStoreError.integrityFailure("the device slot does not open")
            }
            return dataKey
        }
    }

    /// Opens and verifies the store, then unlocks it with the data key `unwrap` returns;
    /// the database is closed again when anything fails.
    func unlockVerified(
        by method: String,
        level: Logger.Level = .info,
        _ unwrap: (OpenedStore) throws -> SymmetricKey
    ) throws(SecureStoreError) -> SecureStore {
        let opened = try openVerified()
        do {
            let dataKey = try unwrap(opened)
            return unlocked(opened, dataKey: dataKey, by: method, level: level)
        } catch {
            try? opened.database.pool.close()
            throw StoreDatabase.map(error)
        }
    }

    /// The open store, once its data key is known; logs how it was unlocked.
    private func unlocked(
        _ opened: OpenedStore,
        dataKey: SymmetricKey,
        by method: String,
        level: Logger.Level
    ) -> SecureStore {
        logger.log(level: level, "store unlocked", metadata: ["store": "\(opened.header.storeID)", "by": "\(method)"])
        return SecureStore(
            location: self,
            database: opened.database,
            keys: StoreKeys(dataKey: dataKey, storeID: opened.header.storeID),
            secrets: opened.secrets,
            header: opened.header
        )
    }

    /// Unlocks with the biometric, when biometric unlock is on.
    ///
    /// - Throws: ``SecureStoreError/biometricsInvalidated`` when the enrollment changed
    ///   (the biometric key is destroyed and biometric unlock turned off; the passcode
    ///   still works), ``SecureStoreError/biometricsFailed`` when the user fails or
    ///   cancels, ``SecureStoreError/erased`` when the last passcode try was spent.
    ///
    /// A lockout delay does not apply: it slows passcode guessing, and a biometric match
    /// is not a guess (the platform limits biometric tries itself). A biometric unlock
    /// clears the failed-attempt count, as a right passcode does.
    public func unlockWithBiometrics(reason: String) async throws(SecureStoreError) -> SecureStore {
        let opened = try openVerified()
        do {
            let dataKey = try await biometricDataKey(in: opened, reason: reason)
            return unlocked(opened, dataKey: dataKey, by: "biometrics", level: .info)
        } catch {
            try? opened.database.pool.close()
            throw error
        }
    }

    /// Asks for the biometric and unwraps the data key with the biometric key; turns
    /// biometric unlock off in the store's records when the enrollment changed. The
    /// caller owns `opened`'s database.
    func biometricDataKey(in opened: OpenedStore, reason: String) async throws(SecureStoreError) -> SymmetricKey {
        do {
            guard opened.header.biometricsEnabled else { throw SecureStoreError.biometricsNotEnabled }
            // Every slot the header expects is there (an erase cut short is finished here).
            _ = try requireSlots(opened)
            // A lockout delay does not hold a biometric back (it slows passcode guesses, and
            // the platform limits biometric tries itself); a spent last try does. The count
            // is read and cleared under the attempt lock, never held while the person is
            // asked.
            do {
                let lock = try attemptLock()
                defer { lock.release() }
                try eraseIfRetryLimitReached(opened)
            }
            let biometrics = environment.biometrics
            guard case .available = biometrics.availability else { throw SecureStoreError.biometricsUnavailable }
            // A key bound to other biometrics is gone before the sensor is asked, as a
            // platform key bound to the enrolled set is: nobody is asked for a finger that
            // cannot open anything.
            let keyName = DeviceSecrets.biometricKeyName(for: opened.header.storeID)
            let record = try? environment.deviceKeys.read(keyName)
            guard let record, record.count == 64, let token = biometrics.enrollmentToken,
                Data(SHA256.hash(data: token)) == record.prefix(32)
            else {
                try disableBiometrics(in: opened)
                logger.notice(
                    "biometric enrollment changed; biometric unlock turned off",
                    metadata: ["store": "\(opened.header.storeID)"]
                )
                throw SecureStoreError.biometricsInvalidated
            }
            do {
                try await biometrics.authenticate(reason: reason)
            } catch {
                throw SecureStoreError.biometricsFailed("the biometric check did not pass")
            }
            // Under the lock again, the slots and the count as they are now: a last passcode
            // try spent elsewhere while the person was asked erased the store.
            let lock = try attemptLock()
            defer { lock.release() }
            let slots = try requireSlots(opened)
            try eraseIfRetryLimitReached(opened)
            guard let slot = slots[.biometric],
                let dataKey = slot.unwrap(with: SymmetricKey(data: record.suffix(32)), storeID: opened.header.storeID)
            else {
                throw SecureStoreError.integrityFailure("the biometric slot does not open")
            }
            try opened.database.write { try StoreRecords.writeLockout(.cleared, $0, secrets: opened.secrets) }
            return dataKey
        } catch {
            throw StoreDatabase.map(error)
        }
    }

    // MARK: Internals shared with the unlocked store

    /// The verified slots, checking that every slot the header expects is there.
    func requireSlots(_ opened: OpenedStore) throws(SecureStoreError) -> [KeySlot.Kind: KeySlot] {
        let slots = try opened.database.read { try StoreRecords.slots($0, secrets: opened.secrets) }
        guard opened.header.expectedSlots.isSubset(of: Set(slots.keys)) else {
            if slots.isEmpty {
                // An erase destroyed the slots and stopped before the files: finish it.
                try erase(opened.database, storeID: opened.header.storeID)
                throw .erased("its key slots were already destroyed, so nothing could open it")
            }
            throw .integrityFailure("a key slot is missing")
        }
        return slots
    }

    /// Counts the attempt, derives the key and tries the passcode slot; on the last
    /// failure erases the store.
    func verifyPasscode(_ passcode: Secret, in opened: OpenedStore) throws(SecureStoreError) -> SymmetricKey {
        try verifiedPasscode(passcode, in: opened).dataKey
    }

    /// ``verifyPasscode(_:in:)``, with the slot the passcode opened.
    func verifiedPasscode(
        _ passcode: Secret,
        in opened: OpenedStore
    ) throws(SecureStoreError) -> (dataKey: SymmetricKey, slot: KeySlot) {
        let lock = try attemptLock()
        defer { lock.release() }
        let slots = try requireSlots(opened)
        guard let slot = slots[.passcode], let derivation = slot.derivation else {
            throw SecureStoreError.passcodeNotSet
        }
        let policy = opened.header.policy ?? .standard
        let now = environment.now()
        // The key is derived while the attempt is counted and synced: the result is looked
        // at only once both are done, so a process stopped in between has learnt nothing
        // and a guess is never free, and the sync's wait hides behind the derivation.
        let deriving = Derivation(derivation, passcode: passcode)
        defer { deriving.wait() }
        enum Step { case attempt(LockoutRecord), eraseNow, wait(Duration) }
        let step = try opened.database.write { db -> Step in
            var record = try StoreRecords.lockout(db, secrets: opened.secrets)
            if record.failures >= policy.retryLimit { return .eraseNow }
            if let next = record.nextAttemptAllowed(delays: policy.lockoutDelays), now < next {
                return .wait(.seconds(next.timeIntervalSince(now)))
            }
            record.failures += 1
            record.lastFailureAt = now
            try StoreRecords.writeLockout(record, db, secrets: opened.secrets)
            return .attempt(record)
        }
        let record: LockoutRecord
        switch step {
        case .eraseNow:
            try eraseAfterRetryLimit(opened)
        case .wait(let delay):
            throw .tryAgainLater(after: delay)
        case .attempt(let counted):
            record = counted
        }
        try fault(.attemptCounted)
        let kek = try deriving.key()
        if let dataKey = slot.unwrap(with: kek, storeID: opened.header.storeID) {
            // Losing this to a power cut costs the person one try, never a free guess.
            try opened.database.writeWithoutSync {
                try StoreRecords.writeLockout(.cleared, $0, secrets: opened.secrets)
            }
            return (dataKey, slot)
        }
        logger.notice(
            "wrong passcode",
            metadata: ["store": "\(opened.header.storeID)", "failures": "\(record.failures)"]
        )
        if record.failures >= policy.retryLimit {
            try eraseAfterRetryLimit(opened)
        }
        throw .wrongPasscode(triesLeft: record.triesLeft(retryLimit: policy.retryLimit))
    }

    /// Holds the store's attempt lock: an attempt runs alone from reading the count of
    /// failures to clearing it, so attempts made at once (two processes, two taps) are
    /// counted one after the other, and right passcodes never add up to an erase. A
    /// process that ends while it holds the lock releases it; its attempt stays counted.
    func attemptLock() throws(SecureStoreError) -> FileLock {
        do {
            return try FileLock(directory.appendingPathComponent(StoreFormat.attemptLockFileName))
        } catch {
            // The attempt before this one erased the store, directory and all.
            if !FileManager.default.fileExists(atPath: directory.path) { throw .erased }
            throw .ioFailure("cannot take the store's attempt lock: \(error)")
        }
    }

    /// Finishes the erase a last passcode try began when that try was cut short (the count
    /// reached the retry limit, and the process died during the key derivation), whichever
    /// way the store is opened next; checks the count's authenticity in passing.
    func eraseIfRetryLimitReached(_ opened: OpenedStore) throws(SecureStoreError) {
        let record = try opened.database.read { try StoreRecords.lockout($0, secrets: opened.secrets) }
        if record.failures >= (opened.header.policy ?? .standard).retryLimit {
            try eraseAfterRetryLimit(opened)
        }
    }

    private func eraseAfterRetryLimit(_ opened: OpenedStore) throws(SecureStoreError) -> Never {
        logger.warning("retry limit reached; erasing the store", metadata: ["store": "\(opened.header.storeID)"])
        try erase(opened.database, storeID: opened.header.storeID)
        throw .erased
    }

    /// The new slot, when the passcode's was re-wrapped at a higher cost.
    private func upgradeKeyDerivationIfNeeded(
        passcode: Secret,
        dataKey: SymmetricKey,
        in opened: OpenedStore
    ) throws(SecureStoreError) -> KeySlot? {
        let slots = try requireSlots(opened)
        guard let current = slots[.passcode]?.derivation, current.rounds < environment.passcodeRounds else {
            return nil
        }
        let derivation = PasscodeKeyDerivation.fresh(rounds: environment.passcodeRounds)
        let kek = try derivation.deriveKey(from: passcode)
        let slot = try KeySlot.wrap(
            dataKey,
            kind: .passcode,
            derivation: derivation,
            with: kek,
            storeID: opened.header.storeID
        )
        try opened.database.write { try StoreRecords.writeSlot(slot, $0, secrets: opened.secrets) }
        logger.info(
            "passcode slot re-wrapped with a higher key-derivation cost",
            metadata: ["store": "\(opened.header.storeID)", "rounds": "\(derivation.rounds)"]
        )
        return slot
    }

    /// Turns biometric unlock off: slot, header flag and key.
    func disableBiometrics(in opened: OpenedStore) throws(SecureStoreError) {
        var header = opened.header
        header.biometricsEnabled = false
        let finalHeader = header
        try opened.database.write { db in
            try StoreRecords.deleteSlot(.biometric, db)
            try StoreRecords.writeHeader(finalHeader, db, secrets: opened.secrets)
        }
        try? environment.deviceKeys.delete(DeviceSecrets.biometricKeyName(for: opened.header.storeID))
    }
}

/// A passcode's key being derived on another thread, while the attempt is counted.
private final class Derivation: Sendable {
    private let result = Mutex<Result<SymmetricKey, SecureStoreError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ derivation: PasscodeKeyDerivation, passcode: Secret) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let derived: Result<SymmetricKey, SecureStoreError>
            do throws(SecureStoreError) {
                derived = .success(try derivation.deriveKey(from: passcode))
            } catch {
                derived = .failure(error)
            }
            result.withLock { $0 = derived }
            done.signal()
        }
    }

    /// The key, once derived.
    func key() throws(SecureStoreError) -> SymmetricKey {
        wait()
        return try result.withLock { $0! }.get()
    }

    /// Waits for the derivation to finish (at most once).
    func wait() {
        guard result.withLock({ $0 == nil }) else { return }
        done.wait()
        done.signal()
    }
}

import Crypto
import Foundation
import GRDB
import GangwayPolicy
import Logging

/// A secure store on disk, locked: where it lives and what can be done without unlocking
/// it (create, unlock, inspect, destroy).
///
/// ```swift
/// let location = SecureStoreLocation(directory: url, environment: environment)
/// let store = try location.create(protection: .passcode(newPasscode), policy: policy)
/// // later
/// let store = try location.unlock(passcode: entered)
/// ```
public struct SecureStoreLocation: Sendable {
    /// The store's directory.
    public let directory: URL
    /// The store's surroundings.
    public let environment: SecureStoreEnvironment
    /// The ID the store must have, when the location was chosen by ID.
    public let expectedStoreID: UUID?

    /// A location by directory.
    public init(directory: URL, environment: SecureStoreEnvironment, expectedStoreID: UUID? = nil) {
        self.directory = directory
        self.environment = environment
        self.expectedStoreID = expectedStoreID
    }

    var logger: Logger { environment.logger }

    /// Whether a store's database file exists in the directory.
    public var exists: Bool {
        FileManager.default.fileExists(atPath: StoreDatabase.databaseURL(in: directory).path)
    }

    // MARK: Create

    /// Creates a new store.
    ///
    /// - Parameters:
    ///   - id: The store ID; by default the location's expected ID or a new one.
    ///   - protection: A passcode, or no-passcode mode.
    ///   - policy: The passcode policy; ``PasscodePolicy/standard`` when `nil` and a
    ///     passcode is given.
    /// - Throws: ``SecureStoreError/storeExists``, ``SecureStoreError/passcodeRejected``
    ///   with the rules the passcode missed, or a file error. A failed create leaves
    ///   nothing behind.
    public func create(
        id: UUID? = nil,
        protection: StoreProtection,
        policy: PasscodePolicy? = nil
    ) throws(SecureStoreError) -> SecureStore {
        let storeID = id ?? expectedStoreID ?? UUID()
        if let expectedStoreID, storeID != expectedStoreID {
            throw .invalidArgument("the store ID does not match the location")
        }
        guard !exists else { throw .storeExists }
        var effectivePolicy: PasscodePolicy?
        if case .passcode(let passcode) = protection {
            do {
                effectivePolicy = try (policy ?? .standard).validated()
            } catch {
                throw .invalidArgument(error.description)
            }
            let evaluation = effectivePolicy!.evaluate(passcode)
            guard evaluation.isAcceptable else { throw .passcodeRejected(evaluation.failedRules) }
        }

        let deviceKey = SecureRandom.data(count: DeviceSecrets.keyByteCount)
        let secrets = try DeviceSecrets(deviceKey: deviceKey, storeID: storeID)
        let dataKey = StoreKeys.generateDataKey()
        let keys = StoreKeys(dataKey: dataKey, storeID: storeID)
        let now = environment.now()
        var header = StoreHeader(
            formatVersion: StoreFormat.version,
            storeID: storeID,
            createdAt: now,
            protection: .device,
            policy: effectivePolicy,
            biometricsEnabled: false,
            passcodeSetAt: nil
        )
        let slot: KeySlot
        var fingerprint: Data?
        switch protection {
        case .passcode(let passcode):
            let derivation = PasscodeKeyDerivation.fresh(rounds: environment.passcodeRounds)
            let kek = try derivation.deriveKey(from: passcode)
            slot = try KeySlot.wrap(dataKey, kind: .passcode, derivation: derivation, with: kek, storeID: storeID)
            header.protection = .passcode
            header.passcodeSetAt = now
            fingerprint = keys.historyFingerprint(of: passcode)
        case .noPasscode:
            slot = try KeySlot.wrap(dataKey, kind: .device, derivation: nil, with: secrets.wrapKey, storeID: storeID)
        }

        let directoryExisted = FileManager.default.fileExists(atPath: directory.path)
        do {
            // The store's directory first: one that is refused (another's, or one others
            // can write) is refused before the device keys' directory is made or written.
            let database = try StoreDatabase.create(in: directory)
            do {
                try environment.deviceKeys.write(deviceKey, for: DeviceSecrets.deviceKeyName(for: storeID))
            } catch {
                throw SecureStoreError.ioFailure("cannot write the device key: \(error)")
            }
            let finalHeader = header
            try database.write { db in
                try StoreRecords.writeHeader(finalHeader, db, secrets: secrets)
                try StoreRecords.writeSlot(slot, db, secrets: secrets)
                try StoreRecords.writeLockout(.cleared, db, secrets: secrets)
                if let fingerprint {
                    // The first entry of an empty history.
                    try StoreRecords.addToPasscodeHistory(fingerprint, keeping: 1, db)
                }
            }
            logger.info("store created", metadata: ["store": "\(storeID)", "protection": "\(header.protection)"])
            return SecureStore(
                location: self,
                database: database,
                keys: keys,
                secrets: secrets,
                header: header
            )
        } catch {
            try? environment.deviceKeys.delete(DeviceSecrets.deviceKeyName(for: storeID))
            StoreFiles.remove(in: directory, directory: directoryExisted ? .keep : .remove)
            throw StoreDatabase.map(error)
        }
    }

    // MARK: Inspect

    /// Reads what the store says about itself without unlocking it. Verifies the
    /// records when the device key is there; never changes anything.
    public func info() throws(SecureStoreError) -> SecureStoreInfo {
        let database = try StoreDatabase.open(in: directory)
        defer { try? database.pool.close() }
        return try database.read { db in
            let (header, _, _) = try StoreRecords.unverifiedHeader(db)
            let slots = try StoreRecords.unverifiedSlots(db)
            let lockout = try StoreRecords.unverifiedLockout(db) ?? .cleared
            let passcodeSlot = slots.first { $0.kind == .passcode }
            var integrity = SecureStoreInfo.Integrity.verified
            do {
                let secrets = try loadSecrets(for: header.storeID)
                let verified = try StoreRecords.header(db, secrets: secrets)
                let present = try StoreRecords.slots(db, secrets: secrets)
                _ = try StoreRecords.lockout(db, secrets: secrets)
                // Records that verify are not enough: the key slots the store needs must be there.
                if !verified.expectedSlots.isSubset(of: Set(present.keys)) {
                    integrity = .failed(
                        present.isEmpty
                            ? "its key slots are gone: an erase began, and opening it finishes the erase"
                            : "a key slot is missing"
                    )
                }
            } catch let error as SecureStoreError where error == .deviceKeyMissing {
                integrity = .unverified(error.description)
            } catch let error as SecureStoreError {
                integrity = .failed(error.description)
            }
            let retryLimit = header.policy?.retryLimit
            return SecureStoreInfo(
                storeID: header.storeID,
                formatVersion: header.formatVersion,
                isPasscodeProtected: header.protection == .passcode,
                keyDerivationAlgorithm: passcodeSlot?.derivation?.algorithm,
                keyDerivationRounds: passcodeSlot?.derivation?.rounds,
                isBiometricUnlockEnabled: header.biometricsEnabled,
                entryCount: try StoreRecords.entryCount(db),
                failedAttempts: lockout.failures,
                triesLeft: header.protection == .passcode ? retryLimit.map { lockout.triesLeft(retryLimit: $0) } : nil,
                policy: header.policy,
                createdAt: header.createdAt,
                passcodeSetAt: header.passcodeSetAt,
                integrity: integrity
            )
        }
    }

    // MARK: Destroy

    /// Destroys the store: key slots first (so the data is unreadable even if deleting
    /// the files is interrupted), then its device keys, then its files. Destroying a
    /// store that does not exist is not an error; a database that is not a store is.
    public func destroy() throws(SecureStoreError) {
        guard exists else { return }
        let database: StoreDatabase
        do {
            database = try StoreDatabase.open(in: directory)
        } catch let error where error == .integrityFailure {
            // A damaged database cannot be crypto-erased row by row; its files go, and the
            // device keys of the ID it claims to be, if it can be told.
            if let expectedStoreID { deleteDeviceKeys(for: expectedStoreID) }
            StoreFiles.remove(in: directory, directory: expectedStoreID != nil ? .remove : .removeIfEmpty)
            return
        }
        let storeID = try? database.read { try StoreRecords.unverifiedHeader($0).header.storeID }
        try erase(database, storeID: storeID ?? expectedStoreID)
        logger.notice("store destroyed", metadata: ["store": "\(storeID.map { "\($0)" } ?? "?")"])
    }

    /// Crypto-erase: slots, then device keys, then files.
    func erase(_ database: StoreDatabase, storeID: UUID?) throws(SecureStoreError) {
        try database.write { db in
            try db.execute(sql: "DELETE FROM keySlot")
        }
        do {
            try database.pool.writeWithoutTransaction { db in
                _ = try db.checkpoint(.truncate)
            }
        } catch {
            logger.warning("checkpoint after destroying key slots failed", metadata: ["error": "\(error)"])
        }
        try fault(.eraseSlotsDestroyed)
        if let storeID { deleteDeviceKeys(for: storeID) }
        try fault(.eraseDeviceKeysDestroyed)
        try? database.pool.close()
        StoreFiles.remove(in: directory, directory: expectedStoreID != nil ? .remove : .removeIfEmpty)
    }

    private func deleteDeviceKeys(for storeID: UUID) {
        for name in [DeviceSecrets.biometricKeyName(for: storeID), DeviceSecrets.deviceKeyName(for: storeID)] {
            do {
                try environment.deviceKeys.delete(name)
            } catch {
                logger.warning("cannot delete a device key", metadata: ["error": "\(error)"])
            }
        }
    }

    func fault(_ point: FaultPoint) throws(SecureStoreError) {
        do {
            try environment.fault(point)
        } catch {
            throw .ioFailure("injected fault at \(point.rawValue)")
        }
    }

    /// The device secrets of a store, or ``SecureStoreError/deviceKeyMissing``.
    func loadSecrets(for storeID: UUID) throws(SecureStoreError) -> DeviceSecrets {
        let key: Data?
        do {
            key = try environment.deviceKeys.read(DeviceSecrets.deviceKeyName(for: storeID))
        } catch {
            throw .ioFailure("cannot read the device key: \(error)")
        }
        guard let key else { throw .deviceKeyMissing }
        return try DeviceSecrets(deviceKey: key, storeID: storeID)
    }
}

/// The files of a store directory.
enum StoreFiles {
    static let names = [
        StoreFormat.databaseFileName, StoreFormat.databaseFileName + "-wal", StoreFormat.databaseFileName + "-shm",
        StoreFormat.attemptLockFileName,
    ]

    /// What happens to the store's directory once its files are gone.
    enum DirectoryRemoval {
        /// It stays: it was there before the store (a failed create leaves it as it was).
        case keep
        /// It goes when nothing else is in it.
        case removeIfEmpty
        /// It goes.
        case remove
    }

    /// Removes the store's files, and its directory as `removal` says. A directory named
    /// by a symbolic link stays, and so does the link: the person made it, not Gangway.
    static func remove(in directory: URL, directory removal: DirectoryRemoval) {
        let manager = FileManager.default
        for name in names {
            try? manager.removeItem(at: directory.appendingPathComponent(name))
        }
        if (try? manager.destinationOfSymbolicLink(atPath: directory.path)) != nil { return }
        switch removal {
        case .keep: return
        case .removeIfEmpty:
            guard ((try? manager.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty else { return }
        case .remove: break
        }
        try? manager.removeItem(at: directory)
    }
}

import Crypto
import Foundation
import GangwayPolicy
import Logging
import Synchronization

extension SecureStore {
    /// Turns biometric unlock on: asks for the biometric once, then wraps the data key
    /// with a new random biometric key bound to the current enrollment.
    ///
    /// - Throws: ``SecureStoreError/notAllowedByPolicy`` when the policy forbids
    ///   biometrics, ``SecureStoreError/biometricsUnavailable`` when none is enrolled,
    ///   ``SecureStoreError/biometricsFailed`` when the check does not pass.
    public func enableBiometricUnlock(reason: String) async throws(SecureStoreError) {
        try checkOpen()
        var header = self.header
        guard header.protection == .passcode else { throw .passcodeNotSet }
        guard header.policy?.allowsBiometrics ?? true else {
            throw .notAllowedByPolicy("the passcode policy does not allow biometric unlock")
        }
        let biometrics = environment.biometrics
        guard case .available = biometrics.availability, let token = biometrics.enrollmentToken else {
            throw .biometricsUnavailable
        }
        do {
            try await biometrics.authenticate(reason: reason)
        } catch {
            throw .biometricsFailed("the biometric check did not pass")
        }
        let biometricKey = SymmetricKey(size: .bits256)
        var record = Data(SHA256.hash(data: token))
        biometricKey.withUnsafeBytes { record.append(contentsOf: $0) }
        let slot = try KeySlot.wrap(
            storeKeys.dataKey,
            kind: .biometric,
            derivation: nil,
            with: biometricKey,
            storeID: id
        )
        do {
            try environment.deviceKeys.write(record, for: DeviceSecrets.biometricKeyName(for: id))
        } catch {
            throw .ioFailure("cannot write the biometric key: \(error)")
        }
        header.biometricsEnabled = true
        let finalHeader = header
        let secrets = self.secrets
        try database.write { db in
            try StoreRecords.writeSlot(slot, db, secrets: secrets)
            try StoreRecords.writeHeader(finalHeader, db, secrets: secrets)
        }
        state.withLock { $0.header = finalHeader }
        location.logger.info("biometric unlock turned on", metadata: ["store": "\(id)"])
    }

    /// Checks the biometric for the open store, as a biometric unlock does: for an app
    /// that comes back from the background without reopening the store.
    ///
    /// - Throws: ``SecureStoreError/biometricsInvalidated`` when the enrollment changed
    ///   (biometric unlock is then off, here and on disk; the passcode still works),
    ///   ``SecureStoreError/biometricsFailed``, ``SecureStoreError/biometricsNotEnabled``,
    ///   ``SecureStoreError/erased`` when the last passcode try was spent.
    public func verifyBiometrics(reason: String) async throws(SecureStoreError) {
        try checkOpen()
        let opened = SecureStoreLocation.OpenedStore(database: database, header: header, secrets: secrets)
        let dataKey: SymmetricKey
        do {
            dataKey = try await location.biometricDataKey(in: opened, reason: reason)
        } catch let error where error == .biometricsInvalidated {
            state.withLock { $0.header.biometricsEnabled = false }
            throw error
        } catch let error where error == .erased {
            state.withLock { $0.isClosed = true }
            throw error
        }
        guard dataKey.withUnsafeBytes({ Data($0) }) == storeKeys.dataKey.withUnsafeBytes({ Data($0) }) else {
            throw .integrityFailure("the biometric slot holds another data key")
        }
    }

    /// Turns biometric unlock off and destroys the biometric key.
    public func disableBiometricUnlock() throws(SecureStoreError) {
        try checkOpen()
        let opened = SecureStoreLocation.OpenedStore(database: database, header: header, secrets: secrets)
        try location.disableBiometrics(in: opened)
        state.withLock { $0.header.biometricsEnabled = false }
        location.logger.info("biometric unlock turned off", metadata: ["store": "\(id)"])
    }
}

import Foundation
import GRDB
import GangwayPolicy
import GangwayTesting
import Testing

@_spi(Testing) @testable import GangwayStore

@Suite("Damaged and altered stores")
struct StoreIntegrityTests {
    @Test func aFlippedByteInAValueIsDetected() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        try fixture.flipByte(table: "entry", column: "sealed", key: "tag", offset: 20)
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(throws: SecureStoreError.integrityFailure) { try store.data(forKey: "fuel") }
    }

    @Test func aValueMovedToAnotherKeyIsDetected() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(entries: ["fuel": "8200 kg", "tyres": "ok"])
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        let fuelTag = store.storeKeys.tag(forName: "fuel")
        let tyresTag = store.storeKeys.tag(forName: "tyres")
        store.close()
        try fixture.tamper(
            "UPDATE entry SET sealed = (SELECT sealed FROM entry WHERE tag = ?) WHERE tag = ?",
            arguments: [fuelTag, tyresTag]
        )
        let reopened = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { reopened.close() }
        #expect(try reopened.string(forKey: "fuel") == "8200 kg")
        #expect(throws: SecureStoreError.integrityFailure) { try reopened.data(forKey: "tyres") }
    }

    @Test func aValueCopiedFromAnotherStoreIsDetected() throws {
        let first = try StoreFixture()
        let second = try StoreFixture()
        try first.makeStore(entries: ["fuel": "9000 kg"])
        try second.makeStore(entries: ["fuel": "100 kg"])
        let foreign = try DatabaseQueue(path: first.databaseURL.path).read {
            try Data.fetchOne($0, sql: "SELECT sealed FROM entry")!
        }
        try second.tamper("UPDATE entry SET sealed = ?", arguments: [foreign])
        let store = try second.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(throws: SecureStoreError.integrityFailure) { try store.data(forKey: "fuel") }
    }

    @Test(arguments: [KeySlot.Kind.passcode, .biometric], [0, 25, 60, 200])
    func aFlippedByteInAKeySlotIsAnIntegrityFailureNotAWrongPasscode(kind: KeySlot.Kind, offset: Int) async throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try await store.enableBiometricUnlock(reason: "test")
        store.close()
        try fixture.flipByte(
            table: "keySlot",
            column: "body",
            key: "kind",
            offset: offset,
            where: "kind = '\(kind.rawValue)'"
        )
        #expect(throws: SecureStoreError.integrityFailure) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
        await #expect(throws: SecureStoreError.integrityFailure) {
            try await fixture.location().unlockWithBiometrics(reason: "test")
        }
        #expect(try fixture.location().info().failedAttempts == 0, "no try was spent on a damaged slot")
        #expect(fixture.location().exists)
    }

    @Test(arguments: [0, 30, 100])
    func aFlippedByteInTheDeviceSlotIsAnIntegrityFailure(offset: Int) throws {
        let fixture = try StoreFixture()
        try fixture.location().create(protection: .noPasscode).close()
        try fixture.flipByte(table: "keySlot", column: "body", key: "kind", offset: offset)
        #expect(throws: SecureStoreError.integrityFailure) { try fixture.location().unlockWithoutPasscode() }
    }

    @Test(arguments: [0, 40])
    func aFlippedByteInASlotsAuthenticationCodeIsDetected(offset: Int) throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        try fixture.flipByte(table: "keySlot", column: "mac", key: "kind", offset: offset)
        #expect(throws: SecureStoreError.integrityFailure) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
    }

    @Test func loweringTheKeyDerivationRoundsBreaksTheSlotInsteadOfWeakeningIt() throws {
        let fixture = try StoreFixture()
        try fixture.location(rounds: 2_000).create(protection: .passcode(StoreFixture.passcode)).close()
        try fixture.tamper(
            "UPDATE keySlot SET body = CAST(replace(CAST(body AS TEXT), '\"rounds\":2000', '\"rounds\":1000') AS BLOB)"
        )
        let queue = try DatabaseQueue(path: fixture.databaseURL.path)
        let lowered = try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM keySlot WHERE CAST(body AS TEXT) LIKE '%\"rounds\":1000%'")
        }
        try queue.close()
        #expect(lowered == 1, "the passcode slot now claims 1,000 rounds")
        #expect(throws: SecureStoreError.integrityFailure) {
            try fixture.location(rounds: 2_000).unlock(passcode: StoreFixture.passcode)
        }
    }

    @Test func raisingTheRetryLimitInTheHeaderIsDetected() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 3))
        try fixture.tamper(
            "UPDATE header SET body = CAST(replace(CAST(body AS TEXT), '\"retryLimit\":3', '\"retryLimit\":900') AS BLOB)"
        )
        #expect(throws: SecureStoreError.integrityFailure) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
        guard case .failed = try fixture.location().info().integrity else {
            Issue.record("info did not report the failure")
            return
        }
    }

    @Test func resettingTheFailureCountIsTamperingAndLocksTheStore() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        try fixture.tamper("UPDATE lockout SET failures = 0")
        #expect(throws: SecureStoreError.tampered) { try fixture.location().unlock(passcode: StoreFixture.passcode) }
        #expect(throws: SecureStoreError.tampered) { try fixture.location().unlock(passcode: StoreFixture.passcode) }
        #expect(fixture.location().exists, "locked, not erased")
    }

    @Test func deletingTheFailureRecordIsTampering() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        try fixture.tamper("DELETE FROM lockout")
        #expect(throws: SecureStoreError.tampered) { try fixture.location().unlock(passcode: StoreFixture.passcode) }
    }

    @Test func aGarbageDatabaseFileIsAnIntegrityFailureAndIsKept() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: fixture.databaseURL)
        try? FileManager.default.removeItem(atPath: fixture.databaseURL.path + "-wal")
        try? FileManager.default.removeItem(atPath: fixture.databaseURL.path + "-shm")
        #expect(throws: SecureStoreError.integrityFailure) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
        #expect(throws: SecureStoreError.integrityFailure) { try fixture.location().info() }
        #expect(try Data(contentsOf: fixture.databaseURL) == garbage, "nothing was overwritten")
    }

    @Test("key slots deleted: info does not call it verified, and the erase it finishes is not blamed on passcodes")
    func deletedKeySlots() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        try fixture.tamper("DELETE FROM keySlot", arguments: [])
        let info = try fixture.location().info()
        #expect(
            info.integrity == .failed("its key slots are gone: an erase began, and opening it finishes the erase"),
            "\(info.integrity)"
        )
        do {
            _ = try fixture.location().unlock(passcode: StoreFixture.passcode)
            Issue.record("a store without key slots opened")
        } catch {
            #expect(error == .erased)
            #expect(error.description.hasPrefix("the store was erased (its key slots were already destroyed"))
            #expect(!error.description.contains("wrong passcode"))
        }
    }

    @Test func aTruncatedDatabaseFileGivesATypedError() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(
            entries: Dictionary(uniqueKeysWithValues: (0..<200).map { ("k\($0)", String(repeating: "v", count: 300)) })
        )
        let bytes = try Data(contentsOf: fixture.databaseURL)
        try bytes.prefix(bytes.count / 3).write(to: fixture.databaseURL)
        do {
            let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
            defer { store.close() }
            _ = try store.keys()
            Issue.record("a truncated store read without error")
        } catch {
            #expect(error == .integrityFailure || error == .notAStore)
        }
    }

    @Test func aDirectoryThatIsNotAStoreIsRefused() throws {
        let fixture = try StoreFixture()
        try FileManager.default.createDirectory(at: fixture.directory, withIntermediateDirectories: true)
        #expect(throws: SecureStoreError.notAStore) { try fixture.location().unlock(passcode: StoreFixture.passcode) }
        let other = try DatabaseQueue(path: fixture.databaseURL.path)
        try other.write { try $0.execute(sql: "CREATE TABLE notes (text TEXT)") }
        try other.close()
        #expect(throws: SecureStoreError.notAStore) { try fixture.location().unlock(passcode: StoreFixture.passcode) }
        #expect(throws: SecureStoreError.notAStore) { try fixture.location().destroy() }
        #expect(
            FileManager.default.fileExists(atPath: fixture.databaseURL.path),
            "someone else's database is left alone"
        )
        #expect(throws: SecureStoreError.storeNotFound) {
            try SecureStoreLocation(
                directory: fixture.temporary.appending("nothing"),
                environment: fixture.environment()
            ).unlock(passcode: "x")
        }
    }

    @Test func aMissingDeviceKeyIsReportedAndLosesNothing() throws {
        let fixture = try StoreFixture(.file)
        let id = try fixture.makeStore()
        let name = DeviceSecrets.deviceKeyName(for: id)
        let key = try #require(try fixture.deviceKeys.read(name))
        try fixture.deviceKeys.delete(name)
        #expect(throws: SecureStoreError.deviceKeyMissing) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
        guard case .unverified = try fixture.location().info().integrity else {
            Issue.record("info should say the records could not be verified")
            return
        }
        try fixture.deviceKeys.write(key, for: name)
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(try store.keys() == ["fuel", "tyres"])
        #expect(try store.string(forKey: "fuel") == "8200 kg")
        #expect(try store.string(forKey: "tyres") == "ok")
    }

    @Test func aNewerFormatIsRefused() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        try fixture.tamper(
            "UPDATE header SET body = CAST(replace(CAST(body AS TEXT), '\"formatVersion\":1', '\"formatVersion\":7') AS BLOB)"
        )
        #expect(throws: SecureStoreError.unsupportedFormat) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
    }
}

import Foundation
import GRDB
import GangwayPolicy
import GangwayTesting
import Testing

@_spi(Testing) @testable import GangwayStore

@Suite("Secure store entries")
struct SecureStoreEntryTests {
    @Test(arguments: DeviceKeyBackend.allCases)
    func valuesSurviveLockAndUnlock(backend: DeviceKeyBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try store.put("8200 kg", forKey: "fuel")
        try store.put(Data([0, 1, 2, 255]), forKey: "binary")
        try store.put("", forKey: "empty")
        try store.encode(["pressure": 14.5], forKey: "tyres")
        store.close()

        let reopened = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { reopened.close() }
        #expect(try reopened.string(forKey: "fuel") == "8200 kg")
        #expect(try reopened.data(forKey: "binary") == Data([0, 1, 2, 255]))
        #expect(try reopened.string(forKey: "empty") == "")
        #expect(try reopened.decode([String: Double].self, forKey: "tyres") == ["pressure": 14.5])
        #expect(try reopened.data(forKey: "missing") == nil)
        #expect(try reopened.keys() == ["binary", "empty", "fuel", "tyres"])
        #expect(try reopened.count() == 4)
    }

    @Test func putReplacesAndRemoveDeletes() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        defer { store.close() }
        try store.put("first", forKey: "k")
        try store.put("second", forKey: "k")
        #expect(try store.string(forKey: "k") == "second")
        #expect(try store.count() == 1)
        #expect(try store.removeValue(forKey: "k"))
        #expect(try !store.removeValue(forKey: "k"))
        #expect(try store.string(forKey: "k") == nil)
        try store.put("x", forKey: "a")
        try store.removeAll()
        #expect(try store.keys().isEmpty)
    }

    @Test func anEmptyKeyNameIsRejected() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        defer { store.close() }
        #expect(throws: SecureStoreError.invalidArgument) { try store.put("v", forKey: "") }
    }

    @Test func aBatchCommitsAllOrNothing() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        defer { store.close() }
        try store.write { batch throws(SecureStoreError) in
            try batch.put("1", forKey: "a")
            try batch.put("2", forKey: "b")
        }
        #expect(try store.keys() == ["a", "b"])
        #expect(throws: SecureStoreError.invalidArgument) {
            try store.write { batch throws(SecureStoreError) in
                try batch.put("3", forKey: "c")
                try batch.put("4", forKey: "")
            }
        }
        #expect(try store.keys() == ["a", "b"], "the failed batch left nothing behind")
    }

    @Test func nothingReadableIsLeftInTheFiles() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try store.put("SECRET-FUEL-VALUE-8200", forKey: "aircraft.D-ABCD.fuel")
        store.close()
        let bytes = try fixture.rawBytes()
        #expect(!bytes.isEmpty)
        #expect(!bytes.contains("SECRET-FUEL-VALUE"))
        #expect(!bytes.contains("D-ABCD"))
        #expect(!bytes.contains(StoreFixture.passcode.value))
    }

    @Test func aClosedStoreRefusesWork() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        store.close()
        store.close()
        #expect(throws: SecureStoreError.closed) { try store.string(forKey: "a") }
        #expect(throws: SecureStoreError.closed) { try store.put("v", forKey: "a") }
    }

    @Test func concurrentReadersAndWritersSeeConsistentValues() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        defer { store.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        let key = "w\(worker).\(index)"
                        try store.put("value \(worker) \(index)", forKey: key)
                        #expect(try store.string(forKey: key) == "value \(worker) \(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.count() == 400)
    }

    @Test func creatingOverAnExistingStoreIsRefused() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        #expect(throws: SecureStoreError.storeExists) {
            try fixture.location().create(protection: .passcode(StoreFixture.otherPasscode))
        }
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(try store.string(forKey: "fuel") == "8200 kg", "the refused create lost nothing")
    }
}

import Foundation
import GangwayPolicy
import GangwayTesting
import Testing

@_spi(Testing) @testable import GangwayStore

@Suite("No-passcode mode and stores side by side")
struct StoreLayoutTests {
    @Test(arguments: DeviceKeyBackend.allCases)
    func aNoPasscodeStoreOpensWithTheDeviceKeyAlone(backend: DeviceKeyBackend) throws {
        let fixture = try StoreFixture(backend)
        let store = try fixture.location().create(protection: .noPasscode)
        try store.put("v", forKey: "k")
        store.close()
        let info = try fixture.location().info()
        #expect(!info.isPasscodeProtected)
        #expect(info.triesLeft == nil)
        #expect(info.keyDerivationRounds == nil)
        #expect(throws: SecureStoreError.passcodeNotSet) { try fixture.location().unlock(passcode: "anything") }
        let reopened = try fixture.location().unlockWithoutPasscode()
        defer { reopened.close() }
        #expect(try reopened.string(forKey: "k") == "v")
    }

    @Test(arguments: DeviceKeyBackend.allCases)
    func storesUnderOneRootAreIndependent(backend: DeviceKeyBackend) throws {
        let fixture = try StoreFixture(backend)
        let root = SecureStoreRoot(directory: fixture.temporary.appending("root"), environment: fixture.environment())
        let alice = UUID()
        let bob = UUID()
        let shared = UUID()
        try root.location(for: alice).create(protection: .passcode("Alice-Passcode-1")).put("alice", forKey: "who")
        try root.location(for: bob).create(protection: .passcode("Bob-Passcode-22")).put("bob", forKey: "who")
        try root.location(for: shared).create(protection: .noPasscode).put("shared", forKey: "who")
        #expect(Set(try root.storeIDs()) == [alice, bob, shared])

        #expect(throws: SecureStoreError.wrongPasscode) {
            try root.location(for: bob).unlock(passcode: "Alice-Passcode-1")
        }
        try root.remove(alice)
        #expect(Set(try root.storeIDs()) == [bob, shared])
        #expect(throws: SecureStoreError.storeNotFound) {
            try root.location(for: alice).unlock(passcode: "Alice-Passcode-1")
        }

        let bobStore = try root.location(for: bob).unlock(passcode: "Bob-Passcode-22")
        #expect(try bobStore.string(forKey: "who") == "bob")
        bobStore.close()
        // A shared store is opened by ID from anywhere that knows it.
        let sharedStore = try SecureStoreRoot(directory: root.directory, environment: fixture.environment())
            .location(for: shared).unlockWithoutPasscode()
        #expect(try sharedStore.string(forKey: "who") == "shared")
        sharedStore.close()
    }

    @Test func aStoreMovedIntoAnotherIDsDirectoryIsRefused() throws {
        let fixture = try StoreFixture()
        let root = SecureStoreRoot(directory: fixture.temporary.appending("root"), environment: fixture.environment())
        let first = UUID()
        let second = UUID()
        try root.location(for: first).create(protection: .passcode(StoreFixture.passcode)).close()
        try FileManager.default.moveItem(
            at: root.location(for: first).directory,
            to: root.location(for: second).directory
        )
        #expect(throws: SecureStoreError.integrityFailure) {
            try root.location(for: second).unlock(passcode: StoreFixture.passcode)
        }
    }

    @Test func destroyRemovesTheStoreAndItsKeysOnly() throws {
        let fixture = try StoreFixture(.file)
        let id = try fixture.makeStore()
        let other = SecureStoreLocation(
            directory: fixture.temporary.appending("other"),
            environment: fixture.environment()
        )
        let otherStore = try other.create(protection: .passcode(StoreFixture.passcode))
        let otherID = otherStore.id
        otherStore.close()
        let neighbour = fixture.temporary.appending("store").appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: neighbour)
        try fixture.location().destroy()
        #expect(!fixture.location().exists)
        #expect(FileManager.default.fileExists(atPath: neighbour.path), "files that are not the store's stay")
        #expect(try fixture.deviceKeys.read(DeviceSecrets.deviceKeyName(for: id)) == nil)
        #expect(
            try fixture.deviceKeys.read(DeviceSecrets.deviceKeyName(for: otherID)) != nil,
            "another store's key stays"
        )
        try other.unlock(passcode: StoreFixture.passcode).close()
        try fixture.location().destroy()
    }

    @Test func opensOfOneStoreAtTheSameTimeWaitForEachOtherInsteadOfFailing() async throws {
        let fixture = try StoreFixture(.file)
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 10))
        // Readers (as `gangway store info`) and unlocks that write the attempt count, each
        // on its own connection, as separate processes would be.
        let failures = await withTaskGroup(of: [String].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var failures: [String] = []
                    for _ in 0..<15 {
                        do {
                            if worker.isMultiple(of: 2) {
                                _ = try fixture.location().info()
                            } else {
                                let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
                                try store.put("v\(worker)", forKey: "k\(worker)")
                                store.close()
                            }
                        } catch {
                            failures.append("\(error)")
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(try store.string(forKey: "k1") == "v1")
        #expect(try fixture.location().info().failedAttempts == 0)
    }
}

@Suite("Device key stores")
struct DeviceKeyStoreTests {
    func make(_ backend: DeviceKeyBackend, in temporary: TemporaryDirectoryHandle) -> any DeviceKeyStore {
        switch backend {
        case .file: FileDeviceKeyStore(directory: temporary.url.appendingPathComponent("keys"))
        case .memory: InMemoryDeviceKeyStore()
        }
    }

    @Test(arguments: DeviceKeyBackend.allCases)
    func readsWritesReplacesAndDeletes(backend: DeviceKeyBackend) throws {
        let temporary = try TemporaryDirectoryHandle()
        let store = make(backend, in: temporary)
        #expect(try store.read("a.key") == nil)
        try store.write(Data([1, 2, 3]), for: "a.key")
        #expect(try store.read("a.key") == Data([1, 2, 3]))
        try store.write(Data([4]), for: "a.key")
        #expect(try store.read("a.key") == Data([4]))
        try store.delete("a.key")
        try store.delete("a.key")
        #expect(try store.read("a.key") == nil)
    }

    @Test(arguments: DeviceKeyBackend.allCases, ["", "../escape", "a/b", ".hidden", "spaces are bad"])
    func badNamesAreRejected(backend: DeviceKeyBackend, name: String) throws {
        let temporary = try TemporaryDirectoryHandle()
        let store = make(backend, in: temporary)
        #expect(throws: DeviceKeyStoreError.self) { try store.write(Data([1]), for: name) }
        #expect(throws: DeviceKeyStoreError.self) { try store.read(name) }
    }

    @Test func keyFilesAreReadableByTheOwnerOnly() throws {
        let temporary = try TemporaryDirectoryHandle()
        let directory = temporary.url.appendingPathComponent("keys")
        try FileDeviceKeyStore(directory: directory).write(Data([9]), for: "k")
        let file = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("k").path)
        let folder = try FileManager.default.attributesOfItem(atPath: directory.path)
        #expect((file[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["k"], "no temporary file left")
    }
}

/// A temporary directory removed when the test ends.
final class TemporaryDirectoryHandle: Sendable {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("gangway-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

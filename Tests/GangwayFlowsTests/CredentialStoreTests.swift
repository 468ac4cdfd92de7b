import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayStore
import GangwayTesting
import Testing

@Suite("Credential stores")
struct CredentialStoreTests {
    @Test func entriesMoveFromMemoryIntoTheSecureStore() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-flows-test")
        defer { directory.remove() }
        let memory = InMemoryCredentialStore()
        memory.put(Data("token-1".utf8), forKey: "session.token")
        memory.put(Data("key".utf8), forKey: "device.key")
        let location = SecureStoreLocation(
            directory: directory.appending("store"),
            environment: SecureStoreEnvironment(deviceKeys: InMemoryDeviceKeyStore(), passcodeRounds: 1_000)
        )
        let store = try location.create(protection: .passcode("Correct-Horse-42"))
        defer { store.close() }
        try memory.moveEntries(to: store)
        #expect(memory.keys().isEmpty)
        #expect(try store.keys() == ["device.key", "session.token"])
        #expect(try store.string(forKey: "session.token") == "token-1")
    }

    @Test func aFailedMoveRemovesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-flows-test")
        defer { directory.remove() }
        let memory = InMemoryCredentialStore()
        memory.put(Data("token-1".utf8), forKey: "session.token")
        let location = SecureStoreLocation(
            directory: directory.appending("store"),
            environment: SecureStoreEnvironment(deviceKeys: InMemoryDeviceKeyStore(), passcodeRounds: 1_000)
        )
        let store = try location.create(protection: .passcode("Correct-Horse-42"))
        store.close()
        #expect(throws: SecureStoreError.closed) { try memory.moveEntries(to: store) }
        #expect(memory.keys() == ["session.token"])
    }

    @Test func typedInfoKeepsItsTypes() {
        var info = FlowInfo()
        let count = FlowInfoKey<Int>("count")
        let name = FlowInfoKey<String>("name")
        info[count] = 3
        info[name] = "Alice"
        #expect(info[count] == 3)
        #expect(info[name] == "Alice")
        #expect(info[FlowInfoKey<String>("count")] == nil, "the same name with another type reads nothing")
        info[count] = nil
        #expect(info.names == ["name"])
    }
}

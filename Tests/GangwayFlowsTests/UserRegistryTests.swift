import Crypto
import Foundation
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@testable import GangwayFlows

@Suite("User registry")
struct UserRegistryTests {
    @Test func usersPersistInRegistrationOrderWithTheSelection() throws {
        let device = try Device()
        let alice = UUID()
        let bob = UUID()
        let registry = device.registry
        try registry.register(alice, displayName: "Alice", serverUserID: "alice")
        try registry.register(bob, displayName: "Bob", serverUserID: "bob")
        try registry.select(alice)
        registry.close()

        let reopened = device.registry
        #expect(try reopened.users().map(\.id) == [alice, bob])
        #expect(try reopened.users().map(\.isPrimary) == [true, false])
        #expect(try reopened.selectedUserID() == alice)
        #expect(try reopened.userID(forServerUser: "bob") == bob)
        #expect(try reopened.userID(forServerUser: "carol") == nil)
        #expect(try reopened.isServerUser("alice", registeredAs: alice) == true)
        #expect(try reopened.isServerUser("bob", registeredAs: alice) == false)

        try reopened.remove(alice)
        #expect(try reopened.users().map(\.id) == [bob])
        #expect(try reopened.selectedUserID() == nil)
        try reopened.remove(alice)
    }

    @Test func theServerUserIDIsKeptOnlyAsAKeyedHash() throws {
        let device = try Device()
        let registry = device.registry
        try registry.register(UUID(), displayName: "Alice", serverUserID: "alice.liddell@example.com")
        let hash = try #require(try registry.users().first?.serverUserHash)
        #expect(hash.count == 64)
        // Not a plain SHA-256 of the ID, which anyone could compute from a list of names.
        #expect(hash != SHA256Hex.of("alice.liddell@example.com"))
        registry.close()

        let files = try FileManager.default.subpathsOfDirectory(atPath: registry.location.directory.path)
        for file in files {
            let data = try Data(contentsOf: registry.location.directory.appendingPathComponent(file))
            #expect(data.range(of: Data("alice.liddell".utf8)) == nil)
            #expect(data.range(of: Data("Alice".utf8)) == nil)
        }
    }

    @Test func twoUsersWithOneDisplayNameAreToldApartInThePicker() throws {
        let device = try Device()
        let registry = device.registry
        let first = UUID()
        let second = UUID()
        let bob = UUID()
        try registry.register(first, displayName: "Alice Martin", serverUserID: "alice")
        try registry.register(bob, displayName: "Bob", serverUserID: "bob")
        // A federated person the server named alice-2, with the same display name.
        try registry.register(second, displayName: "alice martin", serverUserID: "alice-2")
        let shown = MultiUserIDManager.distinguished(try registry.users())
        #expect(shown.map(\.displayName) == ["Alice Martin (#1)", "Bob", "alice martin (alice-2)"])
        #expect(shown.map(\.id) == [first, bob, second])
        // Only the name needed to tell them apart is kept.
        #expect(try registry.users().map(\.userName) == [nil, nil, "alice-2"])
    }

    @Test func wrongRegistrationsGetClearErrors() throws {
        let device = try Device()
        let registry = device.registry
        let alice = UUID()
        try registry.register(alice, displayName: "Alice", serverUserID: "alice")
        let duplicate = #expect(throws: UserError.userAlreadyExists) {
            try registry.register(UUID(), displayName: "Alice again", serverUserID: "alice")
        }
        #expect(duplicate?.onboardingID == alice)
        #expect(duplicate?.description.contains("alice") == false)
        #expect(throws: UserError.unknownUser) { try registry.select(UUID()) }
        #expect(throws: UserError.unknownUser) { try registry.isServerUser("alice", registeredAs: UUID()) }
        #expect(try registry.users().count == 1)
    }
}

enum SHA256Hex {
    static func of(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

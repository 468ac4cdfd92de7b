import Foundation
import GangwayPolicy
import GangwayTesting
import Testing

@testable import GangwayStore

@Suite("Recovery key")
struct RecoveryKeyTests {
    static let secret = Data(repeating: 0x5A, count: 32)

    @Test func theRecoveryKeyOpensTheStoreAndClearsFailures() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try store.put("kept", forKey: "value")
        try store.setRecoveryKey(Self.secret)
        #expect(try store.hasRecoveryKey)
        store.close()

        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Not-The-One-1") }
        let recovered = try fixture.location().unlock(recoveryKey: Self.secret)
        #expect(try recovered.string(forKey: "value") == "kept")
        try recovered.setPasscode(StoreFixture.otherPasscode, policy: nil)
        recovered.close()
        #expect(try fixture.location().info().failedAttempts == 0)
        try fixture.location().unlock(passcode: StoreFixture.otherPasscode).close()
    }

    @Test func aWrongShortOrMissingRecoveryKeyIsRefused() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        #expect(throws: SecureStoreError.invalidArgument) { try store.setRecoveryKey(Data(count: 16)) }
        store.close()
        #expect(throws: SecureStoreError.recoveryNotSet) { try fixture.location().unlock(recoveryKey: Self.secret) }

        let reopened = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try reopened.setRecoveryKey(Self.secret)
        reopened.close()
        var other = Self.secret
        other[0] ^= 1
        let error = #expect(throws: SecureStoreError.recoveryKeyRejected) {
            try fixture.location().unlock(recoveryKey: other)
        }
        #expect(error?.description.contains("5a5a") == false)

        let again = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try again.removeRecoveryKey()
        #expect(try again.hasRecoveryKey == false)
        again.close()
    }

    @Test func verifyingThePasscodeOfAnOpenStoreCountsTries() throws {
        let fixture = try StoreFixture()
        var policy = PasscodePolicy.standard
        policy.retryLimit = 2
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode), policy: policy)
        try store.verifyPasscode(StoreFixture.passcode)
        let wrong = #expect(throws: SecureStoreError.wrongPasscode) { try store.verifyPasscode("Not-The-One-1") }
        #expect(wrong?.triesLeft == 1)
        #expect(throws: SecureStoreError.erased) { try store.verifyPasscode("Not-The-One-2") }
        #expect(throws: SecureStoreError.closed) { try store.string(forKey: "value") }
        #expect(!fixture.location().exists)
    }
}

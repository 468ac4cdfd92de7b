import Foundation
import GRDB
import GangwayPolicy
import GangwayTesting
import Testing

@_spi(Testing) @testable import GangwayStore

@Suite("Changing the passcode")
struct PasscodeChangeTests {
    @Test(arguments: DeviceKeyBackend.allCases)
    func theNewPasscodeOpensAndTheOldOneNoLonger(backend: DeviceKeyBackend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makeStore()
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try store.changePasscode(current: StoreFixture.passcode, new: StoreFixture.otherPasscode)
        store.close()
        #expect(throws: SecureStoreError.wrongPasscode) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
        let reopened = try fixture.location().unlock(passcode: StoreFixture.otherPasscode)
        defer { reopened.close() }
        #expect(try reopened.string(forKey: "fuel") == "8200 kg")
    }

    @Test func aWrongCurrentPasscodeCountsAgainstTheRetryLimit() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 2))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        do {
            try store.changePasscode(current: "Wrong-Current-1", new: StoreFixture.otherPasscode)
            Issue.record("changed with a wrong current passcode")
        } catch {
            #expect(error == .wrongPasscode)
            #expect(error.triesLeft == 1)
        }
        #expect(throws: SecureStoreError.erased) {
            try store.changePasscode(current: "Wrong-Current-2", new: StoreFixture.otherPasscode)
        }
        #expect(throws: SecureStoreError.closed) { try store.string(forKey: "fuel") }
        #expect(!fixture.location().exists)
    }

    @Test func aNewPasscodeThatBreaksThePolicyIsRejectedWithItsRules() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(minimumLength: 10, requiresDigit: true))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        do {
            try store.changePasscode(current: StoreFixture.passcode, new: "short")
            Issue.record("accepted")
        } catch {
            #expect(error == .passcodeRejected)
            #expect(error.failedRules == [.minimumLength(10), .containsDigit])
        }
        store.close()
        try fixture.location().unlock(passcode: StoreFixture.passcode).close()
    }

    @Test func recentPasscodesCannotBeReused() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(historyCount: 2))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(try store.evaluateNewPasscode(StoreFixture.passcode).failedRules == [.notRecentlyUsed(2)])
        try store.changePasscode(current: StoreFixture.passcode, new: "Second-Passcode-2")
        #expect(throws: SecureStoreError.passcodeRejected) {
            try store.changePasscode(current: "Second-Passcode-2", new: StoreFixture.passcode)
        }
        try store.changePasscode(current: "Second-Passcode-2", new: "Third-Passcode-3")
        // The first passcode is now three back: allowed again.
        try store.changePasscode(current: "Third-Passcode-3", new: StoreFixture.passcode)
    }

    @Test(arguments: [FaultPoint.passcodeSlotWritten, .passcodeHeaderWritten, .passcodeHistoryWritten])
    func aCrashBeforeTheCommitLeavesTheOldPasscodeWorking(point: FaultPoint) throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let crashing = fixture.location(fault: { if $0 == point { throw CancellationError() } })
        let store = try crashing.unlock(passcode: StoreFixture.passcode)
        #expect(throws: SecureStoreError.ioFailure) {
            try store.changePasscode(current: StoreFixture.passcode, new: StoreFixture.otherPasscode)
        }
        store.close()
        #expect(throws: SecureStoreError.wrongPasscode) {
            try fixture.location().unlock(passcode: StoreFixture.otherPasscode)
        }
        let reopened = try fixture.location().unlock(passcode: StoreFixture.passcode)
        #expect(try reopened.string(forKey: "fuel") == "8200 kg")
        reopened.close()
    }

    @Test func aCrashAfterTheCommitLeavesTheNewPasscodeWorking() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let crashing = fixture.location(fault: { if $0 == .passcodeCommitted { throw CancellationError() } })
        let store = try crashing.unlock(passcode: StoreFixture.passcode)
        #expect(throws: SecureStoreError.ioFailure) {
            try store.changePasscode(current: StoreFixture.passcode, new: StoreFixture.otherPasscode)
        }
        store.close()
        let reopened = try fixture.location().unlock(passcode: StoreFixture.otherPasscode)
        #expect(try reopened.string(forKey: "fuel") == "8200 kg")
        reopened.close()
    }

    @Test func theChangeRewrapsTheKeyWithoutTouchingEntries() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let before = try DatabaseQueue(path: fixture.databaseURL.path).read { db in
            try Row.fetchAll(db, sql: "SELECT tag, sealed FROM entry ORDER BY tag")
        }
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try store.changePasscode(current: StoreFixture.passcode, new: StoreFixture.otherPasscode)
        store.close()
        let after = try DatabaseQueue(path: fixture.databaseURL.path).read { db in
            try Row.fetchAll(db, sql: "SELECT tag, sealed FROM entry ORDER BY tag")
        }
        #expect(before == after)
    }

    @Test func thePasscodeCanBeRemovedAndSetAgain() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try store.removePasscode()
        store.close()
        #expect(try !fixture.location().info().isPasscodeProtected)
        #expect(throws: SecureStoreError.passcodeNotSet) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
        let open = try fixture.location().unlockWithoutPasscode()
        #expect(try open.string(forKey: "fuel") == "8200 kg")
        try open.setPasscode(StoreFixture.otherPasscode, policy: PasscodePolicy(retryLimit: 4))
        open.close()
        #expect(throws: SecureStoreError.passcodeRequired) { try fixture.location().unlockWithoutPasscode() }
        let info = try fixture.location().info()
        #expect(info.isPasscodeProtected)
        #expect(info.triesLeft == 4)
        try fixture.location().unlock(passcode: StoreFixture.otherPasscode).close()
    }

    @Test func anUpdatedPolicyAppliesItsRetryLimitAtTheNextUnlock() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 10))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try store.updatePolicy(PasscodePolicy(retryLimit: 2))
        store.close()
        #expect(try fixture.location().info().triesLeft == 2)
        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        #expect(throws: SecureStoreError.erased) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
    }
}

import Foundation
import GangwayPolicy
import GangwayTesting
import Testing

@_spi(Testing) @testable import GangwayStore

@Suite("Biometric unlock")
struct BiometricUnlockTests {
    @Test(arguments: DeviceKeyBackend.allCases)
    func aBiometricUnlocksOnceEnabled(backend: DeviceKeyBackend) async throws {
        let fixture = try StoreFixture(backend)
        try fixture.makeStore()
        await #expect(throws: SecureStoreError.biometricsNotEnabled) {
            try await fixture.location().unlockWithBiometrics(reason: "unlock")
        }
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try await store.enableBiometricUnlock(reason: "turn on")
        store.close()
        #expect(try fixture.location().info().isBiometricUnlockEnabled)
        let unlocked = try await fixture.location().unlockWithBiometrics(reason: "unlock")
        defer { unlocked.close() }
        #expect(try unlocked.string(forKey: "fuel") == "8200 kg")
        #expect(fixture.biometrics.authenticationCount == 2)
    }

    @Test func aChangedEnrollmentDestroysTheBiometricKeyButThePasscodeStillWorks() async throws {
        let fixture = try StoreFixture()
        let id = try fixture.makeStore()
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try await store.enableBiometricUnlock(reason: "turn on")
        store.close()
        fixture.biometrics.changeEnrollment()
        let asked = fixture.biometrics.authenticationCount
        await #expect(throws: SecureStoreError.biometricsInvalidated) {
            try await fixture.location().unlockWithBiometrics(reason: "unlock")
        }
        #expect(fixture.biometrics.authenticationCount == asked, "no finger is asked for a key that is gone")
        #expect(try fixture.deviceKeys.read(DeviceSecrets.biometricKeyName(for: id)) == nil)
        #expect(try !fixture.location().info().isBiometricUnlockEnabled)
        await #expect(throws: SecureStoreError.biometricsNotEnabled) {
            try await fixture.location().unlockWithBiometrics(reason: "unlock")
        }
        try fixture.location().unlock(passcode: StoreFixture.passcode).close()
    }

    @Test func anOpenStoreFindsTheChangedEnrollmentAndStillTakesThePasscode() async throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        try await store.enableBiometricUnlock(reason: "turn on")
        try await store.verifyBiometrics(reason: "back from the background")

        fixture.biometrics.changeEnrollment()
        await #expect(throws: SecureStoreError.biometricsInvalidated) {
            try await store.verifyBiometrics(reason: "back from the background")
        }
        #expect(!store.isBiometricUnlockEnabled, "the open store knows at once")
        #expect(try !fixture.location().info().isBiometricUnlockEnabled)
        // The open store's view of its slots matches the disk: the passcode verifies.
        try store.verifyPasscode(StoreFixture.passcode)
        try await store.enableBiometricUnlock(reason: "turn on again")
        try await store.verifyBiometrics(reason: "back from the background")
    }

    @Test func aFailedOrCancelledCheckDoesNotUnlock() async throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try await store.enableBiometricUnlock(reason: "turn on")
        store.close()
        for outcome in [SimulatedBiometrics.Outcome.failure, .cancel] {
            fixture.biometrics.setOutcome(outcome)
            await #expect(throws: SecureStoreError.biometricsFailed) {
                try await fixture.location().unlockWithBiometrics(reason: "unlock")
            }
        }
        #expect(try fixture.location().info().isBiometricUnlockEnabled, "a failed check does not turn it off")
    }

    @Test func thePolicyOrTheDeviceCanForbidBiometrics() async throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(allowsBiometrics: false))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        await #expect(throws: SecureStoreError.notAllowedByPolicy) {
            try await store.enableBiometricUnlock(reason: "x")
        }

        let other = try StoreFixture()
        try other.makeStore()
        other.biometrics.unenroll()
        let otherStore = try other.location().unlock(passcode: StoreFixture.passcode)
        defer { otherStore.close() }
        await #expect(throws: SecureStoreError.biometricsUnavailable) {
            try await otherStore.enableBiometricUnlock(reason: "x")
        }

        let linux = SecureStoreEnvironment(deviceKeys: InMemoryDeviceKeyStore())
        #expect(linux.biometrics.availability == .unavailable)
    }

    @Test func aPolicyThatForbidsBiometricsTurnsThemOff() async throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try await store.enableBiometricUnlock(reason: "turn on")
        try store.updatePolicy(PasscodePolicy(retryLimit: 5, allowsBiometrics: false))
        #expect(!store.isBiometricUnlockEnabled)
        store.close()
        await #expect(throws: SecureStoreError.biometricsNotEnabled) {
            try await fixture.location().unlockWithBiometrics(reason: "unlock")
        }
    }

    /// A store with biometric unlock on and two wrong passcodes: the next try waits 60 s.
    static func storeInALockoutDelay() async throws -> StoreFixture {
        let fixture = try StoreFixture()
        let delays = LockoutDelays(freeAttempts: 1, initialDelay: .seconds(60), maximumDelay: .seconds(600))
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 10, lockoutDelays: delays))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try await store.enableBiometricUnlock(reason: "turn on")
        store.close()
        for _ in 0..<2 {
            #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        }
        return fixture
    }

    @Test func aBiometricUnlocksDuringALockoutDelayAndEndsIt() async throws {
        let fixture = try await Self.storeInALockoutDelay()
        #expect(throws: SecureStoreError.tryAgainLater) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }

        let unlocked = try await fixture.location().unlockWithBiometrics(reason: "unlock")
        #expect(try unlocked.string(forKey: "fuel") == "8200 kg")
        unlocked.close()
        #expect(try fixture.location().info().failedAttempts == 0)
        // The delay ended with the count: the passcode works at once, without the clock moving.
        try fixture.location().unlock(passcode: StoreFixture.passcode).close()
    }

    @Test func aFailedBiometricDuringALockoutDelayNeitherUnlocksNorEndsIt() async throws {
        let fixture = try await Self.storeInALockoutDelay()
        fixture.biometrics.setOutcome(.failure)
        await #expect(throws: SecureStoreError.biometricsFailed) {
            try await fixture.location().unlockWithBiometrics(reason: "unlock")
        }
        #expect(try fixture.location().info().failedAttempts == 2)
        #expect(throws: SecureStoreError.tryAgainLater) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
    }

    @Test func aBiometricUnlockClearsTheFailureCount() async throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try await store.enableBiometricUnlock(reason: "turn on")
        store.close()
        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        try await fixture.location().unlockWithBiometrics(reason: "unlock").close()
        #expect(try fixture.location().info().failedAttempts == 0)
    }
}

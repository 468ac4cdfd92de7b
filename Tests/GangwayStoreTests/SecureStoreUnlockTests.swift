import Foundation
import GRDB
import GangwayPolicy
import GangwayTesting
import Testing

@_spi(Testing) @testable import GangwayStore

@Suite("Unlocking and lockout")
struct SecureStoreUnlockTests {
    @Test(arguments: DeviceKeyBackend.allCases)
    func wrongPasscodeReportsTriesLeftAndLosesNothing(backend: DeviceKeyBackend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 5))
        for expected in [4, 3] {
            do {
                _ = try fixture.location().unlock(passcode: "Wrong-Passcode-1")
                Issue.record("a wrong passcode unlocked the store")
            } catch {
                #expect(error == .wrongPasscode)
                #expect(error.triesLeft == expected)
            }
        }
        #expect(try fixture.location().info().failedAttempts == 2)
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        #expect(try store.keys() == ["fuel", "tyres"])
        #expect(try store.string(forKey: "fuel") == "8200 kg")
        #expect(try store.string(forKey: "tyres") == "ok")
        store.close()
        #expect(try fixture.location().info().failedAttempts == 0, "success resets the count")
    }

    @Test(arguments: DeviceKeyBackend.allCases)
    func wrongPasscodeAtTheRetryLimitErasesTheStore(backend: DeviceKeyBackend) throws {
        let fixture = try StoreFixture(backend)
        let id = try fixture.makeStore(policy: PasscodePolicy(retryLimit: 3))
        for _ in 0..<2 {
            #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Nope-Nope-1") }
        }
        #expect(throws: SecureStoreError.erased) { try fixture.location().unlock(passcode: "Nope-Nope-1") }
        #expect(!fixture.location().exists)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path))
        #expect(try fixture.deviceKeys.read(DeviceSecrets.deviceKeyName(for: id)) == nil)
        #expect(throws: SecureStoreError.storeNotFound) {
            try fixture.location().unlock(passcode: StoreFixture.passcode)
        }
    }

    @Test func tenWrongPasscodesEraseAStoreWithTheStandardPolicy() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: .standard)
        for attempt in 1...10 {
            do {
                _ = try fixture.location().unlock(passcode: Secret("Wrong-Passcode-\(attempt)"))
                Issue.record("unlocked")
            } catch {
                #expect(error == (attempt < 10 ? .wrongPasscode : .erased))
            }
        }
        #expect(!fixture.location().exists)
    }

    @Test func theAttemptIsCountedBeforeTheKeyDerivationRuns() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        // The process "dies" right after the count is synced, before the derivation.
        let crashing = fixture.location(fault: { point in
            if point == .attemptCounted { throw CancellationError() }
        })
        #expect(throws: SecureStoreError.ioFailure) { try crashing.unlock(passcode: StoreFixture.passcode) }
        #expect(try fixture.location().info().failedAttempts == 1)
    }

    /// How a person opens the store after a last passcode try was cut short.
    enum NextOpen: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case rightPasscode, biometric, recoveryKey
        var testDescription: String { rawValue }
    }

    @Test(arguments: NextOpen.allCases)
    func aLastTryCutShortAfterItWasCountedErasesAtTheNextOpen(next: NextOpen) async throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 2))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        try await store.enableBiometricUnlock(reason: "turn on")
        try store.setRecoveryKey(RecoveryKeyTests.secret)
        store.close()
        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        // The last try: counted, then the process dies before the derivation ends.
        let crashing = fixture.location(fault: { point in
            if point == .attemptCounted { throw CancellationError() }
        })
        #expect(throws: SecureStoreError.ioFailure) { try crashing.unlock(passcode: "Wrong-Wrong-2") }
        #expect(fixture.location().exists, "nothing is erased before the next open")
        await #expect(throws: SecureStoreError.erased) {
            switch next {
            case .rightPasscode: try fixture.location().unlock(passcode: StoreFixture.passcode).close()
            case .biometric: try await fixture.location().unlockWithBiometrics(reason: "unlock").close()
            case .recoveryKey: try fixture.location().unlock(recoveryKey: RecoveryKeyTests.secret).close()
            }
        }
        #expect(!fixture.location().exists)
    }

    @Test(arguments: FaultPoint.eraseSteps)
    func anEraseInterruptedAtAnyStepFinishesAtTheNextOpen(point: FaultPoint) throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 1))
        let crashing = fixture.location(fault: { if $0 == point { throw CancellationError() } })
        #expect(throws: SecureStoreError.ioFailure) { try crashing.unlock(passcode: "Wrong-Passcode-1") }
        #expect(throws: SecureStoreError.erased) { try fixture.location().unlock(passcode: StoreFixture.passcode) }
        #expect(!fixture.location().exists)
    }

    @Test func lockoutDelaysGrowAndSurviveARestart() throws {
        let fixture = try StoreFixture()
        let delays = LockoutDelays(freeAttempts: 1, initialDelay: .seconds(30), maximumDelay: .seconds(600))
        try fixture.makeStore(policy: PasscodePolicy(retryLimit: 10, lockoutDelays: delays))
        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        // A new location is a restarted app: the wait comes from the stored record.
        do {
            _ = try fixture.location().unlock(passcode: StoreFixture.passcode)
            Issue.record("unlocked during the delay")
        } catch {
            #expect(error == .tryAgainLater)
            #expect(error.retryAfter == .seconds(30))
        }
        #expect(try fixture.location().info().failedAttempts == 2, "a refused attempt is not counted")
        fixture.clock.advance(by: .seconds(31))
        // The next failure doubles the wait.
        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        do {
            _ = try fixture.location().unlock(passcode: StoreFixture.passcode)
            Issue.record("unlocked during the second delay")
        } catch {
            #expect(error.retryAfter == .seconds(60))
        }
        fixture.clock.advance(by: .seconds(61))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        store.close()
    }

    @Test func aFullWidthOrDecomposedPasscodeUnlocksTheSameStore() throws {
        let fixture = try StoreFixture()
        let composed = "Caf\u{E9}-Kerosin-42"
        let decomposed = "Cafe\u{301}-Kerosin-42"
        let store = try fixture.location().create(protection: .passcode(Secret(composed)))
        store.close()
        try fixture.location().unlock(passcode: Secret(decomposed)).close()

        let pinFixture = try StoreFixture()
        try pinFixture.location().create(
            protection: .passcode("583917"),
            policy: PasscodePolicy(minimumLength: 6, digitsOnly: true)
        ).close()
        try pinFixture.location().unlock(passcode: "５８３９１７").close()
    }

    @Test func theKeyDerivationCostIsRaisedAtTheNextUnlock() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore()
        #expect(try fixture.location().info().keyDerivationRounds == 1_000)
        try fixture.location(rounds: 2_000).unlock(passcode: StoreFixture.passcode).close()
        let info = try fixture.location().info()
        #expect(info.keyDerivationRounds == 2_000)
        #expect(info.keyDerivationAlgorithm == "pbkdf2-hmac-sha256")
        // Never lowered again by an environment with a lower default.
        try fixture.location(rounds: 1_000).unlock(passcode: StoreFixture.passcode).close()
        #expect(try fixture.location().info().keyDerivationRounds == 2_000)
    }

    @Test func newStoresUseSixHundredThousandRoundsByDefault() throws {
        let fixture = try StoreFixture()
        let environment = SecureStoreEnvironment(deviceKeys: fixture.deviceKeys)
        #expect(environment.passcodeRounds == 600_000)
        let location = SecureStoreLocation(directory: fixture.directory, environment: environment)
        try location.create(protection: .passcode(StoreFixture.passcode)).close()
        #expect(try location.info().keyDerivationRounds == 600_000)
    }

    @Test func infoDescribesTheStoreWithoutUnlockingIt() throws {
        let fixture = try StoreFixture()
        let id = try fixture.makeStore(policy: PasscodePolicy(retryLimit: 6))
        #expect(throws: SecureStoreError.wrongPasscode) { try fixture.location().unlock(passcode: "Wrong-Wrong-1") }
        let info = try fixture.location().info()
        #expect(info.storeID == id)
        #expect(info.formatVersion == 1)
        #expect(info.isPasscodeProtected)
        #expect(!info.isBiometricUnlockEnabled)
        #expect(info.entryCount == 2)
        #expect(info.failedAttempts == 1)
        #expect(info.triesLeft == 5)
        #expect(info.integrity == .verified)
    }

    @Test func thePasscodeExpiresAfterThePolicysDays() throws {
        let fixture = try StoreFixture()
        try fixture.makeStore(policy: PasscodePolicy(expiresAfterDays: 30))
        let store = try fixture.location().unlock(passcode: StoreFixture.passcode)
        defer { store.close() }
        #expect(!store.isPasscodeExpired)
        fixture.clock.advance(by: .seconds(30 * 86_400))
        #expect(store.isPasscodeExpired)
        try store.changePasscode(current: StoreFixture.passcode, new: StoreFixture.otherPasscode)
        #expect(!store.isPasscodeExpired)
    }

    @Test func noSecretReachesALogLineOrAnErrorMessage() throws {
        let fixture = try StoreFixture()
        let store = try fixture.location().create(protection: .passcode(StoreFixture.passcode))
        try store.put("VALUE-9f8e7d", forKey: "KEYNAME-1a2b3c")
        try store.changePasscode(current: StoreFixture.passcode, new: StoreFixture.otherPasscode)
        store.close()
        var messages: [String] = []
        do { _ = try fixture.location().unlock(passcode: "Guess-Number-One") } catch { messages.append("\(error)") }
        do {
            let other = SecureStoreLocation(
                directory: fixture.temporary.appending("other"),
                environment: fixture.environment()
            )
            _ = try other.create(protection: .passcode("Reject-1234"), policy: PasscodePolicy(minimumLength: 30))
        } catch { messages.append("\(error)") }
        let logs = fixture.logs.text
        #expect(logs.contains("store created"), "the capture works")
        for secret in [
            StoreFixture.passcode.value, StoreFixture.otherPasscode.value, "Guess-Number-One", "Reject-1234",
            "VALUE-9f8e7d",
            "KEYNAME-1a2b3c",
        ] {
            #expect(!logs.contains(secret))
            #expect(!messages.joined().contains(secret))
        }
    }
}

extension FaultPoint {
    static let eraseSteps: [FaultPoint] = [.eraseSlotsDestroyed, .eraseDeviceKeysDestroyed]
}

extension FaultPoint: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}

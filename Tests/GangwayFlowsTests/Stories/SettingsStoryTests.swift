import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: the passcode settings screen")
struct SettingsStoryTests {
    static var skippable: PasscodePolicy {
        var policy = PasscodePolicy.standard
        policy.allowsSkip = true
        return policy
    }

    @Test func biometricsAndThePasscodeAreTurnedOnAndOffFromSettings() async throws {
        let device = try Device(biometrics: true, server: TestServer(requirement: .required(Self.skippable)))
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode, biometrics: false))
        let session = try await app.manager.open()
        #expect(
            try await app.manager.availablePasscodeActions() == [.changePasscode, .turnOffPasscode, .enableBiometrics]
        )

        #expect(try await app.manager.perform(.enableBiometrics))
        #expect(
            try await app.manager.availablePasscodeActions() == [.changePasscode, .turnOffPasscode, .disableBiometrics]
        )

        // Past the timeout, biometrics unlock without a screen; when they fail, the passcode.
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        #expect(try await app.manager.enterForeground() == .unlock)
        device.biometrics.setOutcome(.failure)
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        app.presenter.append(.unlock(Device.alicePasscode))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        #expect(app.presenter.presented(PasscodeInputScreen.self).last?.biometricsEnabled == true)
        #expect(await app.manager.state == .open(session))

        #expect(try await app.manager.perform(.disableBiometrics))
        app.presenter.append(.passcodeInput(.cancel))
        #expect(try await app.manager.perform(.turnOffPasscode) == false)
        app.presenter.append(.unlock(Device.alicePasscode))
        #expect(try await app.manager.perform(.turnOffPasscode))
        #expect(await app.manager.store?.isPasscodeProtected == false)
        #expect(try await app.manager.availablePasscodeActions() == [.createPasscode])

        app.presenter.append(.create(Device.newPasscode, biometrics: false))
        #expect(try await app.manager.perform(.createPasscode))
        try app.presenter.verifyFinished()
        #expect(await app.manager.store?.isPasscodeProtected == true)
        try await app.manager.close()
        try device.openStore(session.onboardingID, passcode: Device.newPasscode).close()
        #expect(!device.logsHoldASecret)
    }

    @Test func aLockoutDelayIsShownAndTheUserTriesAgainLater() async throws {
        var policy = PasscodePolicy.standard
        policy.lockoutDelays = LockoutDelays(freeAttempts: 1, initialDelay: .seconds(30))
        let device = try Device(server: TestServer(requirement: .required(policy)))
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()

        // Two wrong passcodes, then the right one within the wait: refused without a
        // try, with the wait shown; the user gives up for now.
        let app = try device.launch(
            .unlock("Wrong-Guess-0001"),
            .unlock("Wrong-Guess-0002"),
            .unlock(Device.alicePasscode),
            .error(.cancel)
        )
        let error = await #expect(throws: FlowError.stopped) { try await app.manager.open() }
        try app.presenter.verifyFinished()
        #expect((error?.underlying as? StoreFlowError) == .cancelled)
        let message = try #require(app.presenter.presented(ErrorScreen.self).first?.message)
        #expect(message.contains("Try again in 30 seconds"))

        // After the wait the passcode opens the store.
        device.wallClock.advance(by: .seconds(31))
        let later = try device.launch(.unlock(Device.alicePasscode))
        try await later.manager.open()
        try later.presenter.verifyFinished()
        #expect(later.presenter.presented(PasscodeInputScreen.self).first?.triesLeft == 8)
    }

    @Test func noPasscodeModeIgnoresTheServersPolicy() async throws {
        let device = try Device(options: .init(noPasscode: true))
        let app = try device.launch(.signIn("alice"))
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(await app.manager.store?.isPasscodeProtected == false)
    }
}

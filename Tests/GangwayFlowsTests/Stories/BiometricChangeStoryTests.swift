import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: the device's biometrics change, and the texts name its sensor")
struct BiometricChangeStoryTests {
    /// Alice onboarded with biometric unlock on; the app closed.
    static func aliceWithBiometrics(sensor: BiometricKind = .fingerprint) async throws -> (Device, UUID) {
        let device = try Device(biometrics: true, sensor: sensor)
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode, biometrics: true))
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()
        try await app.manager.close()
        return (device, session.onboardingID)
    }

    @Test func afterANewFingerThePasscodeUnlocksThenThePersonIsToldWhyAndTurnsItOnAgain() async throws {
        let (device, id) = try await Self.aliceWithBiometrics()
        device.biometrics.changeEnrollment()

        let app = try device.launch(.unlock(Device.alicePasscode), .feedback(.continue))
        #expect(try await app.manager.open().onboardingID == id)
        try app.presenter.verifyFinished()
        #expect(app.presenter.presentedKinds == [.passcodeInput, .feedback])
        let notice = try #require(app.presenter.presented(FeedbackScreen.self).first)
        #expect(notice.texts.headline == "Unlocking with your fingerprint was turned off")
        #expect(notice.texts.detail.contains("enrolled on this device changed"))
        #expect(notice.texts.secondaryButton == "Not Now")
        #expect(await app.manager.store?.isBiometricUnlockEnabled == true, "on again, with the new enrollment")
        try await app.manager.close()

        // The next launch unlocks with the biometric and shows nothing.
        let next = try device.launch()
        try await next.manager.open()
        try next.presenter.verifyFinished()
        #expect(next.presenter.presentedKinds.isEmpty)
    }

    @Test("after a passcode change the biometric still unlocks, and the new passcode does too; the old does not")
    func biometricUnlockAfterAPasscodeChange() async throws {
        let (device, id) = try await Self.aliceWithBiometrics()
        let newPasscode: Secret = "Night-Shift-9753-x"
        let app = try device.launch(
            .passcodeChange(.enter(Device.alicePasscode), .enter(newPasscode), .enter(newPasscode))
        )
        try await app.manager.open()
        try await app.manager.store?.put("tyres ok", forKey: "check.tyres")
        #expect(try await app.manager.changePasscode())
        try app.presenter.verifyFinished()
        try await app.manager.close()

        // The biometric opens the data without a passcode screen.
        let byBiometric = try device.launch()
        #expect(try await byBiometric.manager.open().onboardingID == id)
        try byBiometric.presenter.verifyFinished()
        #expect(byBiometric.presenter.presentedKinds.isEmpty)
        #expect(try await byBiometric.manager.store?.string(forKey: "check.tyres") == "tyres ok")
        try await byBiometric.manager.close()

        // Without the biometric, the new passcode opens it and the old one does not.
        device.biometrics.setOutcome(.cancel)
        let byPasscode = try device.launch(.unlock(Device.alicePasscode), .unlock(newPasscode))
        #expect(try await byPasscode.manager.open().onboardingID == id)
        try byPasscode.presenter.verifyFinished()
        #expect(try await byPasscode.manager.store?.string(forKey: "check.tyres") == "tyres ok")
    }

    @Test func notNowLeavesThePasscodeAndTheNewsIsNotRepeated() async throws {
        let (device, _) = try await Self.aliceWithBiometrics()
        device.biometrics.changeEnrollment()
        let app = try device.launch(.unlock(Device.alicePasscode), .feedback(.secondary))
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(await app.manager.store?.isBiometricUnlockEnabled == false)
        #expect(try await app.manager.availablePasscodeActions().contains(.enableBiometrics), "on again from settings")
        try await app.manager.close()

        let next = try device.launch(.unlock(Device.alicePasscode))
        try await next.manager.open()
        try next.presenter.verifyFinished()
        #expect(next.presenter.presentedKinds == [.passcodeInput])
    }

    @Test func theChangeFoundOnReturnFromTheBackgroundKeepsTheOpenStoreWorking() async throws {
        let (device, _) = try await Self.aliceWithBiometrics()
        let app = try device.launch()
        try await app.manager.open()
        try await app.manager.store?.put("tyres 2.4 bar", forKey: "check.tyres")
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        device.biometrics.changeEnrollment()
        app.presenter.append(.unlock(Device.alicePasscode), .feedback(.continue))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        #expect(await app.manager.state.name == "open")
        #expect(try await app.manager.store?.string(forKey: "check.tyres") == "tyres 2.4 bar")
        #expect(await app.manager.store?.isBiometricUnlockEnabled == true)

        // And the next return unlocks with the new enrollment, without a screen.
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
    }

    @Test(arguments: [
        (BiometricKind.touchID, "Touch ID"), (.faceID, "Face ID"), (.opticID, "Optic ID"),
        (.fingerprint, "your fingerprint"), (.face, "your face"), (.iris, "your iris"),
    ])
    func theTextsNameTheSensor(kind: BiometricKind, name: String) async throws {
        let (device, _) = try await Self.aliceWithBiometrics(sensor: kind)
        device.biometrics.setOutcome(.failure)
        let app = try device.launch(.unlock(Device.alicePasscode))
        try await app.manager.open()
        try app.presenter.verifyFinished()
        let input = try #require(app.presenter.presented(PasscodeInputScreen.self).first)
        #expect(input.useBiometricsLabel == "Use \(name)")

        let fresh = try Device(biometrics: true, sensor: kind)
        let first = try fresh.launch(.signIn("alice"), .create(Device.alicePasscode, biometrics: false))
        try await first.manager.open()
        let create = try #require(first.presenter.presented(PasscodeCreateScreen.self).first)
        #expect(create.biometricTitle == "Unlock with \(name)?")
        #expect(create.biometricDetail.contains(name))
    }

    @Test func anAppNamesTheSensorInItsOwnWords() async throws {
        var strings = StoreManager.Strings()
        strings.biometricNames[.faceID] = "Gesichtserkennung"
        strings.create.biometricTitle = "Mit %@ entsperren?"
        let device = try Device(biometrics: true, sensor: .faceID, strings: strings)
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode, biometrics: false))
        try await app.manager.open()
        let create = try #require(app.presenter.presented(PasscodeCreateScreen.self).first)
        #expect(create.biometricTitle == "Mit Gesichtserkennung entsperren?")
    }

    @Test func policyAnnouncementsNameTheSensor() async throws {
        var noBiometrics = PasscodePolicy.standard
        noBiometrics.allowsBiometrics = false
        let server = TestServer(requirement: .required(noBiometrics))
        let device = try Device(biometrics: true, sensor: .faceID, server: server)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()
        server.requirement = .required(.standard)
        let app = try device.launch(.unlock(Device.alicePasscode), .acknowledge)
        try await app.manager.open()
        let feedback = try #require(app.presenter.presented(FeedbackScreen.self).first)
        #expect(feedback.texts.headline == "Unlocking with Face ID is now allowed")
    }
}

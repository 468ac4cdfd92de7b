import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: the app's own passcode rules, a hidden reset, and confirmed cancels")
struct AppPasscodeRulesStoryTests {
    /// The app's rule: no passcode may contain the airline's name.
    static let noAirlineName: @Sendable (Secret) -> String? = { passcode in
        passcode.value.lowercased().contains("airline") ? "A passcode may not contain the airline's name." : nil
    }

    @Test func theAppsCheckRefusesPasscodesAtOnboardingAndInTheSettings() async throws {
        let device = try Device(options: .init(validatePasscode: Self.noAirlineName))
        let app = try device.launch(
            .signIn("alice"),
            .passcodeCreate(.enter("Airline-Check-42"), .enter(Device.alicePasscode), .enter(Device.alicePasscode))
        )
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()

        app.presenter.append(
            .passcodeChange(
                .enter(Device.alicePasscode),
                .enter("My-Airline-2468"),
                .enter(Device.newPasscode),
                .enter(Device.newPasscode)
            )
        )
        #expect(try await app.manager.changePasscode())
        try app.presenter.verifyFinished()
        try await app.manager.close()
        try device.openStore(session.onboardingID, passcode: Device.newPasscode).close()
    }

    @Test func theAppsCheckAlsoHoldsInAForcedChange() async throws {
        let server = TestServer(requirement: .required(.standard))
        let device = try Device(server: server, options: .init(validatePasscode: Self.noAirlineName))
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()

        var stricter = PasscodePolicy.standard
        stricter.minimumLength = 16
        server.requirement = .required(stricter)
        let app = try device.launch(
            .unlock(Device.alicePasscode),
            .acknowledge,
            .passcodeChange(
                .enter("Airline-Night-97531"),
                .enter("Gate-Night-9753-xy"),
                .enter("Gate-Night-9753-xy")
            )
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
    }

    @Test func forgotPasscodeCanBeHidden() async throws {
        let device = try Device(options: .init(offersPasscodeReset: false))
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()

        // "Forgot passcode" does nothing on a screen that does not offer it.
        let app = try device.launch(.passcodeInput(.reset, .enter(Device.alicePasscode)))
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(app.presenter.presented(PasscodeInputScreen.self).allSatisfy { !$0.allowsReset })
    }

    @Test func cancellingAtLaunchAsksInTheAppsWordsThenCancels() async throws {
        var strings = StoreManager.Strings()
        strings.cancelUnlock = CancelConfirmation(
            title: "Leave?",
            message: "The checks stay locked.",
            confirm: "Leave",
            resume: "Stay"
        )
        let device = try Device(options: .init(allowsCancel: true), strings: strings)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()

        // Going back from the question leaves the screen as it was; the second cancel holds.
        let app = try device.launch(.passcodeInput(.cancel, .confirmCancel(false), .cancel, .confirmCancel(true)))
        let error = await #expect(throws: FlowError.stopped) { try await app.manager.open() }
        #expect((error?.underlying as? StoreFlowError) == .cancelled)
        try app.presenter.verifyFinished()
        let screen = try #require(app.presenter.presented(PasscodeInputScreen.self).first)
        #expect(screen.cancelConfirmation == strings.cancelUnlock)
        #expect(await app.manager.session == nil)

        // Without confirmation the app's choice, cancel is at once.
        let quick = try Device(options: .init(allowsCancel: true, confirmsCancel: false))
        let onboarded = try quick.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await onboarded.manager.open()
        try await onboarded.manager.close()
        let relaunch = try quick.launch(.passcodeInput(.cancel))
        let quickError = await #expect(throws: FlowError.stopped) { try await relaunch.manager.open() }
        #expect((quickError?.underlying as? StoreFlowError) == .cancelled)
        try relaunch.presenter.verifyFinished()
    }
}

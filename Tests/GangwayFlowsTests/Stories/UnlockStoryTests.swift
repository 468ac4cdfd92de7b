import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: coming back to a locked app")
struct UnlockStoryTests {
    static func lockedApp(retryLimit: Int = 10) async throws -> (Device, App, Session) {
        var policy = PasscodePolicy.standard
        policy.retryLimit = retryLimit
        let device = try Device(server: TestServer(requirement: .required(policy)))
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let session = try await app.manager.open()
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        return (device, app, session)
    }

    @Test func wrongPasscodesOnReturnEraseTheStoreAndForgetTheUser() async throws {
        let (device, app, session) = try await Self.lockedApp(retryLimit: 2)
        let recorder = Recorder()
        await app.manager.addObserver { recorder.record("\($0)") }
        app.presenter.append(.unlock("Wrong-Guess-0001"), .unlock("Wrong-Guess-0002"))
        await #expect(throws: SecureStoreError.erased) { try await app.manager.enterForeground() }
        try app.presenter.verifyFinished()
        #expect(await app.manager.state == .closed)
        #expect(!device.storeExists(session.onboardingID))
        #expect(try app.registry.users().isEmpty)
        #expect(recorder.all == ["userRemoved(\(session.onboardingID))"])
        #expect(app.ui.events.last == .hide)
    }

    @Test func forgotPasscodeOnReturnResetsItAndKeepsTheData() async throws {
        let (device, app, session) = try await Self.lockedApp()
        try await app.manager.store?.put("tyres 2.4 bar", forKey: "check.tyres")
        app.presenter.append(.passcodeInput(.reset), .signIn("alice"), .create(Device.newPasscode))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        let reopened = try #require(await app.manager.session)
        #expect(reopened.onboardingID == session.onboardingID)
        #expect(reopened.id != session.id)
        #expect(try await app.manager.store?.string(forKey: "check.tyres") == "tyres 2.4 bar")
        try await app.manager.close()
        try device.openStore(session.onboardingID, passcode: Device.newPasscode).close()
    }

    static func expiringDevice() throws -> Device {
        var policy = PasscodePolicy.standard
        policy.expiresAfterDays = 30
        policy.historyCount = 0
        return try Device(server: TestServer(requirement: .required(policy)))
    }

    @Test func anExpiredPasscodeMustBeReplacedAtTheNextLaunch() async throws {
        let device = try Self.expiringDevice()
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let session = try await first.manager.open()
        try await first.manager.close()

        // 29 days later nothing is asked but the passcode.
        device.wallClock.advance(by: .seconds(29 * 86_400))
        let early = try device.launch(.unlock(Device.alicePasscode))
        try await early.manager.open()
        try early.presenter.verifyFinished()
        try await early.manager.close()

        // Past 30 days: the feedback screen says why, then a new passcode. The old one is
        // refused on the create screen (it stays in the enter phase), though the policy
        // keeps no history.
        device.wallClock.advance(by: .seconds(2 * 86_400))
        let app = try device.launch(
            .unlock(Device.alicePasscode),
            .acknowledge,
            .passcodeCreate(.enter(Device.alicePasscode), .enter(Device.newPasscode), .enter(Device.newPasscode))
        )
        #expect(try await app.manager.open().onboardingID == session.onboardingID)
        try app.presenter.verifyFinished()
        #expect(app.presenter.presentedKinds == [.passcodeInput, .feedback, .passcodeCreate])
        let feedback = try #require(app.presenter.presented(FeedbackScreen.self).first)
        #expect(feedback.texts.headline == "Your passcode has expired")
        #expect(feedback.texts.detail.contains("every 30 days"))
        let create = try #require(app.presenter.presented(PasscodeCreateScreen.self).first)
        #expect(!create.allowsSkip)
        #expect(create.reason == StoreManager.Strings().passcodeExpiredReason)
        #expect(await app.manager.store?.isPasscodeExpired == false)
        try await app.manager.close()

        // The new passcode opens the store; the old one no longer does.
        #expect(throws: SecureStoreError.wrongPasscode) {
            try device.openStore(session.onboardingID, passcode: Device.alicePasscode)
        }
        try device.openStore(session.onboardingID, passcode: Device.newPasscode).close()
        #expect(!device.logsHoldASecret)
    }

    @Test func anExpiredPasscodeIsReplacedWhenTheAppComesBack() async throws {
        let device = try Self.expiringDevice()
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await app.manager.open()
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))
        device.wallClock.advance(by: .seconds(31 * 86_400))
        app.presenter.append(.unlock(Device.alicePasscode), .acknowledge, .create(Device.newPasscode))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        #expect(await app.manager.state.name == "open")
        #expect(await app.manager.store?.isPasscodeExpired == false)
    }

    @Test func theStoreManagersTextsFollowTheStringTable() async throws {
        let german = StringTable(locale: Locale(identifier: "de_DE"))
        let app = german.overriding(["store.passcodeExpiredReason": "Bitte einen ganz neuen Passcode."])
        try await StringTable.withTable(app) {
            let device = try Self.expiringDevice()
            let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
            try await first.manager.open()
            try await first.manager.close()
            device.wallClock.advance(by: .seconds(31 * 86_400))
            let later = try device.launch(.unlock(Device.alicePasscode), .acknowledge, .create(Device.newPasscode))
            try await later.manager.open()
            let feedback = try #require(later.presenter.presented(FeedbackScreen.self).first)
            #expect(feedback.texts.title == "Passcode abgelaufen")
            #expect(
                feedback.texts.detail
                    == "Ihre Organisation verlangt alle 30 Tage einen neuen Passcode. Wählen Sie einen neuen, um fortzufahren."
            )
            let create = try #require(later.presenter.presented(PasscodeCreateScreen.self).first)
            #expect(create.reason == "Bitte einen ganz neuen Passcode.", "the app's override")
            #expect(create.strings.title == "Passcode erstellen")
            #expect(later.presenter.presented(PasscodeInputScreen.self).first?.strings.title == "Passcode eingeben")
        }
    }

    @Test func anAppKilledOnTheExpiryScreensAsksAgain() async throws {
        let device = try Self.expiringDevice()
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()
        device.wallClock.advance(by: .seconds(31 * 86_400))

        // The script ends on the create screen, as a killed app would.
        let killed = try device.launch(.unlock(Device.alicePasscode), .acknowledge)
        await #expect(throws: FlowError.stopped) { try await killed.manager.open() }
        let again = try device.launch(.unlock(Device.alicePasscode), .acknowledge, .create(Device.newPasscode))
        try await again.manager.open()
        try again.presenter.verifyFinished()
        #expect(again.presenter.presentedKinds == [.passcodeInput, .feedback, .passcodeCreate])
    }

    @Test func aFailedUnlockStaysLockedAndAsksAgain() async throws {
        var policy = PasscodePolicy.standard
        policy.lockoutDelays = LockoutDelays(freeAttempts: 0, initialDelay: .seconds(30))
        let device = try Device(server: TestServer(requirement: .required(policy)))
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let session = try await app.manager.open()
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(600))

        // A wrong passcode starts a wait; the user gives up on the wait screen.
        app.presenter.append(.unlock("Wrong-Guess-0001"), .unlock(Device.alicePasscode), .error(.cancel))
        await #expect(throws: StoreFlowError.cancelled) { try await app.manager.enterForeground() }
        #expect(await app.manager.state == .unlocking(session))
        await #expect(throws: SessionError.wrongState) { try await app.manager.changePasscode() }

        // Still locked: the next return asks again, even at once.
        await app.manager.enterBackground()
        device.wallClock.advance(by: .seconds(31))
        app.presenter.append(.unlock(Device.alicePasscode))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        #expect(await app.manager.state == .open(session))
    }

    @Test func wrongCurrentPasscodesInSettingsEraseAndForgetTheUser() async throws {
        var policy = PasscodePolicy.standard
        policy.retryLimit = 2
        let device = try Device(server: TestServer(requirement: .required(policy)))
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let session = try await app.manager.open()
        app.presenter.append(
            .passcodeChange(.enter("Wrong-Guess-0001"), .enter(Device.newPasscode), .enter(Device.newPasscode)),
            .passcodeChange(.enter("Wrong-Guess-0002"), .enter(Device.newPasscode), .enter(Device.newPasscode))
        )
        await #expect(throws: SecureStoreError.erased) { try await app.manager.changePasscode() }
        try app.presenter.verifyFinished()
        #expect(await app.manager.state == .closed)
        #expect(!device.storeExists(session.onboardingID))
        #expect(try app.registry.users().isEmpty)
    }

    @Test func theUsersOwnDecisionsAreNotRetried() async throws {
        let device = try Device()
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()

        let recorder = Recorder()
        let app = try device.launch(
            [.passcodeInput(.reset), .signIn("alice"), .create(Device.newPasscode)],
            delegate: { failure in
                recorder.record("asked about \(failure.error)")
                return .retry
            }
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(recorder.all.isEmpty)
    }

    @Test func aUserWhoseStoreIsGoneIsOnboardedAgain() async throws {
        let device = try Device()
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let alice = try await first.manager.open().onboardingID
        try await first.manager.close()
        try device.root.remove(alice)

        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(session.onboardingID != alice)
        #expect(try app.registry.users().map(\.id) == [session.onboardingID])
    }

    @Test func logoutRunsTheHookThenCloses() async throws {
        let device = try Device()
        let recorder = Recorder()
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let manager = try SessionManager(
            flows: FlowController(
                provider: StepListProvider(device.steps(users: SingleUserIDManager(registry: device.registry)))
            ),
            users: SingleUserIDManager(registry: device.registry),
            storeManager: device.storeManager,
            ui: app.ui,
            presenter: app.presenter,
            clock: device.clock,
            logout: { context in recorder.record("logout \(context.onboardingID)") }
        )
        let session = try await manager.open()
        try await manager.logout()
        #expect(recorder.all == ["logout \(session.onboardingID)"])
        #expect(await manager.state == .closed)
        await #expect(throws: SessionError.wrongState) { try await manager.logout() }
        // The user stays registered: the next launch restores them.
        #expect(try device.registry.users().map(\.id) == [session.onboardingID])
    }
}

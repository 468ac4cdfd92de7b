import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: one user on a device")
struct OnboardingStoryTests {
    /// Launches, onboards Alice and returns her onboarding ID.
    static func onboardAlice(on device: Device) async throws -> UUID {
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()
        try await app.manager.close()
        return session.onboardingID
    }

    @Test func firstLaunchOnboardsAndOpensASession() async throws {
        let device = try Device()
        let app = try device.launch(
            .signIn(.signIn(username: "alice", password: "wrong")),
            .signIn("alice"),
            .create(Device.alicePasscode)
        )
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()

        #expect(app.presenter.presentedKinds == [.signIn, .signIn, .passcodeCreate])
        #expect(app.presenter.presented(SignInScreen.self).last?.message == TestServer.wrongPassword)
        #expect(await app.manager.state == .open(session))
        #expect(app.ui.events == [.splash, .show(session)])
        #expect(try app.registry.users().map(\.displayName) == ["Alice"])
        #expect(try app.registry.selectedUserID() == session.onboardingID)

        // The token the sign-in kept in memory moved into the new store.
        let store = try #require(await app.manager.store)
        #expect(store.isPasscodeProtected)
        #expect(try store.string(forKey: TestServer.tokenKey) == "token-of-alice")
        #expect(try store.hasRecoveryKey)
        #expect(!device.logsHoldASecret)
    }

    @Test func relaunchRestoresWithThePasscode() async throws {
        let device = try Device()
        let id = try await Self.onboardAlice(on: device)

        let app = try device.launch(.unlock(Device.alicePasscode))
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(session.onboardingID == id)
        #expect(try await app.manager.store?.string(forKey: TestServer.tokenKey) == "token-of-alice")
        #expect(
            app.presenter.presented(PasscodeInputScreen.self).first?.triesLeft == PasscodePolicy.standard.retryLimit
        )
    }

    @Test func wrongPasscodesToTheRetryLimitEraseAndOnboardAgain() async throws {
        var policy = PasscodePolicy.standard
        policy.retryLimit = 3
        let device = try Device(server: TestServer(requirement: .required(policy)))
        let alice = try await Self.onboardAlice(on: device)
        var events: [UserEvent] = []

        let app = try device.launch(
            .unlock("Wrong-Guess-0001"),
            .unlock("Wrong-Guess-0002"),
            .unlock("Wrong-Guess-0003"),
            .signIn("alice"),
            .create(Device.newPasscode)
        )
        let recorder = Recorder()
        await app.manager.addObserver { recorder.record("\($0)") }
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()

        let screens = app.presenter.presented(PasscodeInputScreen.self)
        #expect(screens.map(\.triesLeft) == [3, 2, 1])
        #expect(screens.map(\.afterWrongPasscode) == [false, true, true])
        #expect(screens.last?.warning != nil)
        #expect(session.onboardingID != alice)
        #expect(!device.storeExists(alice))
        #expect(device.storeExists(session.onboardingID))
        #expect(try app.registry.users().map(\.id) == [session.onboardingID])
        events = [.userRemoved(alice), .userAdded(session.onboardingID)]
        #expect(recorder.all == events.map { "\($0)" })
    }

    @Test func theLockTimeoutDecidesWhetherForegroundAsksForThePasscode() async throws {
        let device = try Device()
        _ = try await Self.onboardAlice(on: device)
        let app = try device.launch(.unlock(Device.alicePasscode))
        let session = try await app.manager.open()

        // Back before the five-minute timeout: no passcode.
        await app.manager.enterBackground()
        #expect(app.presenter.hideCount == 1)
        #expect(app.ui.events.last == .hide)
        #expect(await app.manager.state == .locked(session, since: device.clock.reading))
        device.clock.advance(by: .seconds(299))
        #expect(try await app.manager.enterForeground() == .resume)
        #expect(await app.manager.state == .open(session))
        #expect(app.ui.events.last == .show(session))

        // Back at the timeout: the passcode, a wrong one first.
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(300))
        app.presenter.append(.unlock("Wrong-Guess-0001"), .unlock(Device.alicePasscode))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        #expect(await app.manager.state == .open(session))
        #expect(app.presenter.presented(PasscodeInputScreen.self).last?.afterWrongPasscode == true)
        #expect(app.presenter.hideCount == 2)

        // Calls that do not fit the state say so.
        await #expect(throws: SessionError.wrongState) { try await app.manager.open() }
        try await app.manager.close()
        await #expect(throws: SessionError.wrongState) { try await app.manager.close() }
        await #expect(throws: SessionError.wrongState) { try await app.manager.changePasscode() }
        #expect(try await app.manager.enterForeground() == .none)
    }

    @Test func changingThePasscodeFromSettings() async throws {
        let device = try Device()
        let id = try await Self.onboardAlice(on: device)
        let app = try device.launch(.unlock(Device.alicePasscode))
        try await app.manager.open()
        #expect(try await app.manager.availablePasscodeActions() == [.changePasscode])
        await #expect(throws: StoreFlowError.actionNotAvailable) { try await app.manager.perform(.enableBiometrics) }

        app.presenter.append(
            .passcodeChange(.enter("Wrong-Guess-0001"), .enter(Device.newPasscode), .enter(Device.newPasscode)),
            .passcodeChange(.enter(Device.alicePasscode), .enter(Device.newPasscode), .enter(Device.newPasscode))
        )
        #expect(try await app.manager.changePasscode())
        try app.presenter.verifyFinished()
        #expect(app.presenter.presented(PasscodeChangeScreen.self).last?.notice != nil)

        // A cancelled change asks first, then keeps the passcode.
        app.presenter.append(.passcodeChange(.enter(Device.newPasscode), .cancel, .confirmCancel(true)))
        #expect(try await app.manager.changePasscode() == false)
        #expect(app.presenter.presented(PasscodeChangeScreen.self).last?.cancelConfirmation?.message != nil)
        try await app.manager.close()

        #expect(throws: SecureStoreError.wrongPasscode) { try device.openStore(id, passcode: Device.alicePasscode) }
        try device.openStore(id, passcode: Device.newPasscode).close()
        #expect(!device.logsHoldASecret)
    }

    @Test func aFailingStepIsRetriedThenStoppedAndTheOnboardingRolledBack() async throws {
        let device = try Device()
        let recorder = Recorder()
        let failing = ClosureStep("consent service", onboard: { _ in throw StoreFlowError.storeNotOpen })
        let app = try device.launch(
            .signIn("alice"),
            .create(Device.alicePasscode),
            extra: [failing],
            delegate: { failure in
                recorder.record("attempt \(failure.attempt)")
                return failure.attempt < 2 ? .retry : .stop
            }
        )
        await #expect(throws: FlowError.stopped) { try await app.manager.open() }
        try app.presenter.verifyFinished()
        #expect(recorder.all == ["attempt 1", "attempt 2"])
        #expect(await app.manager.state == .idle)
        #expect(try app.registry.users().isEmpty)
        #expect(try device.root.storeIDs().isEmpty)
        #expect(app.ui.events == [.splash])
    }

    @Test func noPasscodeModeNeverAsks() async throws {
        let device = try Device(server: TestServer(requirement: .notRequired))
        let app = try device.launch(.signIn("alice"))
        let session = try await app.manager.open()
        #expect(await app.manager.store?.isPasscodeProtected == false)
        #expect(try await app.manager.availablePasscodeActions() == [.createPasscode])
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(3_600))
        #expect(try await app.manager.enterForeground() == .resume)
        try await app.manager.close()

        let relaunch = try device.launch()
        #expect(try await relaunch.manager.open().onboardingID == session.onboardingID)
        try relaunch.presenter.verifyFinished()
    }

    @Test func theDefaultPolicyAppliesWhenTheServerSendsNone() async throws {
        var policy = PasscodePolicy.standard
        policy.minimumLength = 12
        let device = try Device(server: TestServer(requirement: nil), options: .init(defaultPolicy: policy))
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await app.manager.open()
        #expect(app.presenter.presented(PasscodeCreateScreen.self).first?.entry.policy.minimumLength == 12)
        #expect(await app.manager.store?.policy?.minimumLength == 12)
    }

    @Test func theDefaultPolicyAppliesWhenTheServerTurnsItsPolicyOff() async throws {
        var policy = PasscodePolicy.standard
        policy.minimumLength = 12
        let server = TestServer(requirement: .notRequired)
        let device = try Device(server: server, options: .init(defaultPolicy: policy))
        let app = try device.launch(.signIn("alice"), .create("Fuel-Check-24680"))
        try await app.manager.open()
        #expect(app.presenter.presented(PasscodeCreateScreen.self).first?.entry.policy.minimumLength == 12)
        #expect(await app.manager.store?.isPasscodeProtected == true)
        try await app.manager.close()

        // The server's policy stays off at the next launch: the passcode stays on, asked for.
        let relaunch = try device.launch(.unlock("Fuel-Check-24680"))
        try await relaunch.manager.open()
        try relaunch.presenter.verifyFinished()
        #expect(relaunch.presenter.presentedKinds == [.passcodeInput])
        #expect(await relaunch.manager.store?.isPasscodeProtected == true)
    }

    @Test func aServerPolicyCanOnlyMakeTheDefaultStricter() async throws {
        var app = PasscodePolicy.standard
        app.minimumLength = 12
        app.allowsBiometrics = true
        var weaker = PasscodePolicy.standard
        weaker.minimumLength = 4
        weaker.allowsSkip = true
        weaker.allowsBiometrics = false
        let device = try Device(server: TestServer(requirement: .required(weaker)), options: .init(defaultPolicy: app))
        let launch = try device.launch(.signIn("alice"), .create("Fuel-Check-24680"))
        try await launch.manager.open()
        let screen = try #require(launch.presenter.presented(PasscodeCreateScreen.self).first)
        #expect(screen.entry.policy.minimumLength == 12)
        #expect(!screen.allowsSkip, "the app does not allow skipping, whatever the server says")
        #expect(!screen.entry.policy.allowsBiometrics, "the server does not allow biometrics")
    }

    @Test func skippingThePasscodeWhereThePolicyAllowsItAndBeingAskedOnceItNoLongerDoes() async throws {
        var skippable = PasscodePolicy.standard
        skippable.allowsSkip = true
        let server = TestServer(requirement: .required(skippable))
        let device = try Device(server: server)
        let app = try device.launch(.signIn("alice"), .passcodeCreate(.skip))
        let session = try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(app.presenter.presented(PasscodeCreateScreen.self).first?.allowsSkip == true)
        #expect(await app.manager.store?.isPasscodeProtected == false)
        #expect(try await app.manager.availablePasscodeActions() == [.createPasscode])
        try await app.manager.close()

        // The choice holds while the policy allows it: the relaunch asks nothing.
        let relaunch = try device.launch()
        #expect(try await relaunch.manager.open().onboardingID == session.onboardingID)
        try relaunch.presenter.verifyFinished()
        try await relaunch.manager.close()

        // Once the server requires a passcode, the next launch says so and asks for one.
        server.requirement = .required(.standard)
        let required = try device.launch(.acknowledge, .create(Device.alicePasscode))
        try await required.manager.open()
        try required.presenter.verifyFinished()
        #expect(required.presenter.presented(FeedbackScreen.self).first?.transition == .noneToPasscode)
        #expect(await required.manager.store?.isPasscodeProtected == true)
    }

    @Test func skippingIsNeverOfferedOnASharedDevice() async throws {
        var skippable = PasscodePolicy.standard
        skippable.allowsSkip = true
        let device = try Device(shared: true, server: TestServer(requirement: .required(skippable)))
        let app = try device.launch(
            .signIn("alice"),
            .passcodeCreate(.skip, .enter(Device.alicePasscode), .enter(Device.alicePasscode))
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(app.presenter.presented(PasscodeCreateScreen.self).first?.allowsSkip == false)
        #expect(await app.manager.store?.isPasscodeProtected == true)
    }

    @Test func aStoreIDOverrideAndRestoreIfExistsShareOneStore() async throws {
        let shared = UUID()
        let device = try Device(options: .init(storeID: shared, restoreIfStoreExists: true))
        let first = try await Self.onboardAlice(on: device)
        #expect(device.storeExists(shared))
        #expect(!device.storeExists(first))

        // A second onboarding (the registry forgotten) opens the existing store instead of failing.
        try device.registry.remove(first)
        let app = try device.launch(.signIn("alice"), .unlock(Device.alicePasscode))
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(try device.root.storeIDs() == [shared])
    }
}

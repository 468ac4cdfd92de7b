import Foundation
import GangwayFlows
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
        app.presenter.append(.passcodeInput(.reset), .signIn("alice"), .create(Device.newPasscode))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        let reopened = try #require(await app.manager.session)
        #expect(reopened.onboardingID == session.onboardingID)
        #expect(reopened.id != session.id)
        #expect(try await app.manager.store?.string(forKey: TestServer.tokenKey) == "token-of-alice")
        try await app.manager.close()
        try device.openStore(session.onboardingID, passcode: Device.newPasscode).close()
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
            clock: device.clock.now,
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

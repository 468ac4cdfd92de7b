import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Synchronization
import Testing

@Suite("Stories: what the server decides reaches the device")
struct ServerDecisionsReachTheDeviceTests {
    /// Lock after 3 days without contact, wipe after 10.
    static let lockAfter3WipeAfter10 =
        #"{"blockWipingPolicy": {"blockWipeEnabled": true, "blockDisconnectedPeriod": 3, "wipeDisconnectedPeriod": 10}}"#

    /// Onboards alice with a check in her store and closes the app.
    static func onboardAlice(_ device: ServicesDevice) async throws -> UUID {
        let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
        let session = try await app.manager.open()
        try #require(await app.manager.store).put(Data("tyres ok".utf8), forKey: "check.A320.tyres")
        try await app.manager.close()
        return session.onboardingID
    }

    @Test func aForgottenPasscodeIsResetAndTheDataKept() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            let app = try device.launch(
                .passcodeInput(.reset),
                .signIn("alice"),
                .create(ServicesDevice.newPasscode)
            )
            #expect(try await app.manager.open().onboardingID == id)
            try app.presenter.verifyFinished()
            #expect(try await app.manager.store?.data(forKey: "check.A320.tyres") == Data("tyres ok".utf8))
            try await app.manager.close()
            #expect(throws: SecureStoreError.self) { try device.openStore(id, passcode: ServicesDevice.alicePasscode) }
            #expect(
                try device.openStore(id, passcode: ServicesDevice.newPasscode).data(forKey: "check.A320.tyres") != nil
            )
        }
    }

    @Test(
        "after a password change the device wraps its store under the new recovery secret, so a reset still keeps the data"
    )
    func aPasswordChangeRotatesTheRecoverySecret() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            try await server.admin(.patch, "/admin/users/alice", json: #"{"password": "alice-new-password-1"}"#)
            // Her session ended with the change: she unlocks, then signs in with the new password.
            let again = try device.launch(
                .unlock(ServicesDevice.alicePasscode),
                .signIn("alice", password: "alice-new-password-1")
            )
            #expect(try await again.manager.open().onboardingID == id)
            try again.presenter.verifyFinished()
            try await again.manager.close()
            // She forgets her passcode: the current secret opens the store, the data stays.
            let reset = try device.launch(
                .passcodeInput(.reset),
                .signIn("alice", password: "alice-new-password-1"),
                .create(ServicesDevice.newPasscode)
            )
            #expect(try await reset.manager.open().onboardingID == id)
            #expect(try await reset.manager.store?.data(forKey: "check.A320.tyres") == Data("tyres ok".utf8))
        }
    }

    @Test("with passcode reset keeping data turned off, a forgotten passcode erases the user's data")
    func aResetWithoutRecoveryErasesTheData() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            _ = try await Self.onboardAlice(device)
            try await server.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"recoverySettings": {"passcodeResetKeepsData": false}}}"#
            )
            let reset = try device.launch(.passcodeInput(.reset), .signIn("alice"), .create(ServicesDevice.newPasscode))
            try await reset.manager.open()
            let store = try #require(await reset.manager.store, "the reset opened a store")
            #expect(try store.data(forKey: "check.A320.tyres") == nil)
            // The new store holds new offline keys, registered: the user can work offline.
            let context = try #require(await reset.manager.flowContext)
            #expect(try device.work.isReady(in: context))
        }
    }

    @Test("the server's log lines of a whole story hold no password, passcode, token, cookie or recovery secret")
    func serverLogsHoldNoSecret() async throws {
        let logs = LogCapture()
        try await TestServer.run(seed: .checks, options: .init(logger: logs.logger)) { server in
            let device = try ServicesDevice(server: server)
            _ = try await Self.onboardAlice(device)
            let reset = try device.launch(
                .passcodeInput(.reset),
                .signIn("alice"),
                .create(ServicesDevice.newPasscode)
            )
            try await reset.manager.open()
            try await reset.manager.close()
            let client = MobileServicesClient(serverURL: server.url)
            _ = try? await client.signIn(
                appID: "checks",
                username: "alice",
                password: "wrong-guess-1",
                deviceID: "probe"
            )
            let session = try await client.signIn(
                appID: "checks",
                username: "alice",
                password: "alice-password",
                deviceID: "probe"
            )
            let registration = try await client.registerDevice(
                appID: "checks",
                token: session.token,
                device: DeviceIdentity(deviceID: "probe", deviceName: "Probe", appVersion: "1.0.0")
            )
            let secret = try #require(registration.recoveryKey).secret
            let cookie = try #require(session.deviceCookie)
            let text = logs.text
            #expect(text.contains("recovery secret released"))
            for needle in [
                "alice-password", "wrong-guess-1", "gw_", "gwd_", cookie, session.token.value, server.adminToken,
                secret.base64EncodedString(), ServicesDevice.alicePasscode.value, ServicesDevice.newPasscode.value,
            ] {
                #expect(!text.contains(needle))
            }
        }
    }

    @Test func aPasscodeResetByAnotherUserIsRefused() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            // Bob has no user on this single-user device: he can only go back to Alice's
            // passcode, where Alice, who remembers it after all, unlocks her data.
            let app = try device.launch(
                .passcodeInput(.reset),
                .signIn("bob"),
                .existingUser(.back),
                .unlock(ServicesDevice.alicePasscode)
            )
            #expect(try await app.manager.open().onboardingID == id)
            try app.presenter.verifyFinished()
            let screen = try #require(app.presenter.presented(ExistingUserScreen.self).first)
            #expect(screen.situation == .otherPerson(resetting: "Alice", signedIn: nil) && !screen.allowsAddUser)
            #expect(try #require(await app.manager.store).data(forKey: "check.A320.tyres") != nil)
        }
    }

    @Test func logoutRevokesTheSessionThenCloses() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            let token = try #require(try await app.manager.store?.data(forKey: "gangway.services.token"))
            try await app.manager.logout()
            #expect(await app.manager.state == .closed)
            // The server no longer takes the token.
            let client = MobileServicesClient(serverURL: server.url)
            await #expect(throws: ServiceError.sessionExpired) {
                _ = try await client.settings(
                    appID: "checks",
                    token: SessionToken(String(decoding: token, as: UTF8.self))
                )
            }
            // Next launch: passcode, then sign in again.
            let again = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"))
            try await again.manager.open()
            try again.presenter.verifyFinished()
        }
    }

    @Test(
        "logging out on the server only keeps the session and its data; the next request asks alice to sign in again"
    )
    func logoutFromTheServerOnly() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.admin(
                .put,
                "/admin/apps/checks/data/checks/F-GKXA-fuel",
                json: AppDataReaderTests.fuel
            )
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try await app.manager.store?.put("tyres ok", forKey: "check.tyres")
            let token = try #require(try await app.manager.store?.data(forKey: "gangway.services.token"))
            try await app.manager.logoutFromServer()
            #expect(await app.manager.session != nil, "the session stays open")
            #expect(try await app.manager.store?.string(forKey: "check.tyres") == "tyres ok")
            #expect(try await app.manager.store?.data(forKey: "gangway.services.token") == nil)
            let client = MobileServicesClient(serverURL: server.url)
            await #expect(throws: ServiceError.sessionExpired) {
                _ = try await client.settings(
                    appID: "checks",
                    token: SessionToken(String(decoding: token, as: UTF8.self))
                )
            }
            // The next request: alice signs in again, and the read goes on.
            app.presenter.append(.signIn("alice"))
            let context = try #require(await app.manager.flowContext)
            let reading = try await AppDataReader(services: device.services).read("checks", in: context)
            try app.presenter.verifyFinished()
            #expect(reading.isFresh)
            #expect(reading.entities.map(\.id) == ["F-GKXA-fuel"])
            #expect(try await app.manager.store?.data(forKey: "gangway.services.token") != nil)
        }
    }

    @Test("someone guessing alice's password elsewhere does not keep her out of her own device")
    func guessingDoesNotLockTheOwnerOut() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            // The cookie the server gave at onboarding is kept in her store, and stays at logout.
            #expect(try await app.manager.store?.data(forKey: "gangway.services.deviceCookie") != nil)
            try await app.manager.logout()

            let client = MobileServicesClient(serverURL: server.url)
            for _ in 1...25 {
                _ = try? await client.signIn(
                    appID: "checks",
                    username: "alice",
                    password: "guess",
                    deviceID: "elsewhere"
                )
            }
            await #expect(throws: ServiceError.throttled) {
                _ = try await client.signIn(
                    appID: "checks",
                    username: "alice",
                    password: "alice-password",
                    deviceID: "new-tablet"
                )
            }
            // Her device presents its cookie, and she is in at the first try.
            let again = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"))
            try await again.manager.open()
            try again.presenter.verifyFinished()
        }
    }

    @Test func logoutSucceedsWhenTheServerHasEndedTheSessionAlready() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try await server.admin(.patch, "/admin/users/alice", json: #"{"password": "another-password-1"}"#)
            try await app.manager.logout()
            #expect(await app.manager.state == .closed)
        }
    }

    @Test func logoutWithoutTheServerKeepsTheSessionOpen() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try device.goOffline()
            // The context holds the configuration the session opened with: point it away too.
            let relaunch = try device.launch(.unlock(ServicesDevice.alicePasscode))
            try await app.manager.close()
            try await relaunch.manager.open()
            await #expect(throws: ServiceError.unreachable) { try await relaunch.manager.logout() }
            #expect(await relaunch.manager.session != nil)
        }
    }

    @Test func aLockFromTheAdminHoldsUntilAnAdminUnlocksIt() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            try await server.setDevice(of: "alice", to: "locked")
            // Asked to sign in again, then refused there too, with why and what to do; the
            // person leaves, and their data stays.
            let app = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"), .signIn(.cancel))
            await #expect(throws: (any Error).self) { try await app.manager.open() }
            try app.presenter.verifyFinished()
            let screens = app.presenter.presented(SignInScreen.self)
            #expect(screens.first?.message?.contains(ServiceError.registrationLocked.summary) == true)
            #expect(screens.last?.message?.contains(ServiceError.registrationLocked.advice) == true, "\(screens)")
            #expect(device.storeExists(id))
            // Unlocked by an administrator: the person signs in and goes on with their data.
            try await server.setDevice(of: "alice", to: "active")
            let later = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"))
            #expect(try await later.manager.open().onboardingID == id)
            try later.presenter.verifyFinished()
            #expect(try await later.manager.store?.data(forKey: "check.A320.tyres") == Data("tyres ok".utf8))
        }
    }

    @Test func aWipeFromTheAdminErasesTheUserAndReturnsToWelcome() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            try await server.setDevice(of: "alice", to: "wiped")
            let app = try device.launch(
                .unlock(ServicesDevice.alicePasscode),
                .welcome(.signIn),
                .signIn("alice"),
                .create(ServicesDevice.newPasscode)
            )
            let events = Mutex<[UserEvent]>([])
            await app.manager.addObserver { event in events.withLock { $0.append(event) } }
            let session = try await app.manager.open()
            try app.presenter.verifyFinished()
            // Observers hear why before the removal: the app tells the person who erased it.
            #expect(
                Array(events.withLock { $0 }.prefix(2)) == [
                    .userWiped(id, reason: "Your administrator erased this user's data on this device."),
                    .userRemoved(id),
                ]
            )
            #expect(session.onboardingID != id)
            #expect(!device.storeExists(id))
            #expect(try await app.manager.store?.data(forKey: "check.A320.tyres") == nil)
        }
    }

    @Test func aTightenedPolicyForcesAPasscodeChangeAtTheNextRestore() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            _ = try await Self.onboardAlice(device)
            try await server.updateSettings(
                #"{"passwordPolicy": {"passwordPolicyMinLength": 18, "passwordPolicyDigitRequired": true}}"#
            )
            let app = try device.launch(
                .unlock(ServicesDevice.alicePasscode),
                .acknowledge,
                // Only the new passcode: the one typed at the launch is known.
                .passcodeChange(.enter("Night-Shift-9753-xy"), .enter("Night-Shift-9753-xy"))
            )
            try await app.manager.open()
            try app.presenter.verifyFinished()
            let feedback = try #require(app.presenter.presented(FeedbackScreen.self).first)
            #expect(feedback.transition == .passcodeToPasscode)
            #expect(await app.manager.store?.policy?.minimumLength == 18)
        }
    }

    @Test func offlineTheUserUnlocksWithoutTheServer() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            try device.goOffline()
            let app = try device.launch(.unlock(ServicesDevice.alicePasscode))
            #expect(try await app.manager.open().onboardingID == id)
            try app.presenter.verifyFinished()
        }
    }

    @Test func pastTheLockPeriodWithoutContactTheUserSignsInAgain() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.updateSettings(Self.lockAfter3WipeAfter10)
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            device.wallClock.advance(by: .seconds(4 * 86_400))
            // Offline, the sign-in cannot happen: the user is told and may cancel.
            try device.goOffline()
            let offline = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"), .error(.cancel))
            await #expect(throws: FlowError.stopped) { try await offline.manager.open() }
            try offline.presenter.verifyFinished()
            #expect(device.storeExists(id))
            // Back online, signing in lets the user in.
            try device.goOnline()
            let online = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"))
            #expect(try await online.manager.open().onboardingID == id)
            try online.presenter.verifyFinished()
        }
    }

    @Test func pastTheWipePeriodWithoutContactTheDataIsErased() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.updateSettings(Self.lockAfter3WipeAfter10)
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            device.wallClock.advance(by: .seconds(11 * 86_400))
            try device.goOffline()
            let app = try device.launch(.unlock(ServicesDevice.alicePasscode), .welcome(.demoMode))
            let events = Mutex<[UserEvent]>([])
            await app.manager.addObserver { event in events.withLock { $0.append(event) } }
            await #expect(throws: FlowError.stopped) { try await app.manager.open() }
            #expect(
                Array(events.withLock { $0 }.prefix(2)) == [
                    .userWiped(id, reason: ServiceFlowError.outOfContact.message), .userRemoved(id),
                ]
            )
            try app.presenter.verifyFinished()
            #expect(!device.storeExists(id))
            #expect(try app.registry.users().isEmpty)
        }
    }

    // MARK: While the app runs: the settings exchange made when it goes to the background

    @Test func aPolicyTightenedWhileTheAppRunsIsChangedAtTheNextUnlockWhateverTheTimeAway() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let newPasscode: Secret = "Night-Shift-9753-xy"
            let app = try device.launch(
                .byEmail,
                .signIn("alice"),
                .create(ServicesDevice.alicePasscode),
                .unlock(ServicesDevice.alicePasscode),
                .acknowledge,
                // The passcode typed at the unlock is not asked again: only the new one, twice.
                .passcodeChange(.enter(newPasscode), .enter(newPasscode))
            )
            let session = try await app.manager.open()
            try await server.updateSettings(
                #"{"passwordPolicy": {"passwordPolicyMinLength": 18, "passwordPolicyDigitRequired": true}}"#
            )
            await app.manager.enterBackground()
            // Nothing is shown in the background: the change waits, the old rules stay.
            #expect(app.presenter.presented(FeedbackScreen.self).isEmpty)
            #expect(await app.manager.store?.policy?.minimumLength == 8)
            // Back after ten seconds, well within the lock timeout: the passcode is asked all the same.
            device.clock.advance(by: .seconds(10))
            #expect(try await app.manager.enterForeground() == .unlock)
            try app.presenter.verifyFinished()
            #expect(try #require(app.presenter.presented(FeedbackScreen.self).first).transition == .passcodeToPasscode)
            #expect(await app.manager.store?.policy?.minimumLength == 18)
            #expect(await app.manager.session == session)
            // Done: the next short absence resumes without the passcode.
            await app.manager.enterBackground()
            device.clock.advance(by: .seconds(10))
            #expect(try await app.manager.enterForeground() == .resume)
            try await app.manager.close()
            #expect(try device.openStore(session.onboardingID, passcode: newPasscode).policy?.minimumLength == 18)
        }
    }

    @Test func aPolicyChangeLeftPendingRunsAtTheNextLaunch() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try await server.updateSettings(#"{"passwordPolicy": {"passwordPolicyMinLength": 18}}"#)
            await app.manager.enterBackground()
            // The app is killed in the background; the next launch runs the change.
            let newPasscode: Secret = "Night-Shift-9753-xy"
            let relaunch = try device.launch(
                .unlock(ServicesDevice.alicePasscode),
                .acknowledge,
                .passcodeChange(.enter(newPasscode), .enter(newPasscode))
            )
            try await relaunch.manager.open()
            try relaunch.presenter.verifyFinished()
            #expect(relaunch.presenter.presented(FeedbackScreen.self).count == 1, "announced once, not twice")
            #expect(await relaunch.manager.store?.policy?.minimumLength == 18)
        }
    }

    @Test func aShorterLockTimeoutAppliesInTheBackgroundWithoutAskingAnything() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(
                .byEmail,
                .signIn("alice"),
                .create(ServicesDevice.alicePasscode),
                .unlock(ServicesDevice.alicePasscode)
            )
            try await app.manager.open()
            try await server.updateSettings(#"{"passwordPolicy": {"passwordPolicyLockTimeout": 60}}"#)
            await app.manager.enterBackground()
            #expect(await app.manager.store?.policy?.lockTimeout == .seconds(60))
            // 61 s away: within the old 300 s, past the new 60 s.
            device.clock.advance(by: .seconds(61))
            #expect(try await app.manager.enterForeground() == .unlock)
            try app.presenter.verifyFinished()
            #expect(app.presenter.presented(FeedbackScreen.self).isEmpty, "a limit changes without a word")
        }
    }

    @Test func aWipeWhileTheAppRunsErasesTheUserWhenTheAppGoesToTheBackground() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            let session = try await app.manager.open()
            try #require(await app.manager.store).put(Data("tyres ok".utf8), forKey: "check.A320.tyres")
            try await server.setDevice(of: "alice", to: "wiped")
            let events = Mutex<[UserEvent]>([])
            await app.manager.addObserver { event in events.withLock { $0.append(event) } }
            await app.manager.enterBackground()
            #expect(
                events.withLock { $0 } == [
                    .userWiped(session.onboardingID, reason: ServiceError.registrationWiped.wipeReason),
                    .userRemoved(session.onboardingID),
                ]
            )
            #expect(await app.manager.session == nil)
            #expect(await app.manager.state == .closed)
            #expect(!device.storeExists(session.onboardingID))
            #expect(try app.registry.users().isEmpty)
            #expect(try await app.manager.enterForeground() == .none)
            #expect(!device.logsHoldASecret)
        }
    }

    @Test func offlineGoingToTheBackgroundChangesNothing() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            try await server.updateSettings(#"{"passwordPolicy": {"passwordPolicyMinLength": 18}}"#)
            try device.goOffline()
            let app = try device.launch(.unlock(ServicesDevice.alicePasscode))
            #expect(try await app.manager.open().onboardingID == id)
            await app.manager.enterBackground()
            device.clock.advance(by: .seconds(10))
            #expect(try await app.manager.enterForeground() == .resume)
            try app.presenter.verifyFinished()
            #expect(await app.manager.store?.policy?.minimumLength == 8)
            #expect(await app.manager.session?.onboardingID == id)
        }
    }

    @Test func aLockWhileTheAppRunsEndsTheSessionInTheBackgroundAndTheNextOpenSignsIn() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            let session = try await app.manager.open()
            try #require(await app.manager.store).put(Data("tyres ok".utf8), forKey: "check.A320.tyres")
            let events = Mutex<[UserEvent]>([])
            await app.manager.addObserver { event in events.withLock { $0.append(event) } }
            try await server.setDevice(of: "alice", to: "locked")
            await app.manager.enterBackground()
            #expect(await app.manager.state == .closed)
            #expect(
                events.withLock { $0 }
                    == [.sessionEnded(session.onboardingID, reason: ServiceError.registrationLocked.summary)]
            )
            // The data stays; once an administrator unlocks it, the next open asks for the
            // passcode, then a sign-in.
            #expect(device.storeExists(session.onboardingID))
            try await server.setDevice(of: "alice", to: "active")
            let again = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"))
            #expect(try await again.manager.open().onboardingID == session.onboardingID)
            try again.presenter.verifyFinished()
            #expect(try await again.manager.store?.data(forKey: "check.A320.tyres") == Data("tyres ok".utf8))
            #expect(!device.logsHoldASecret)
        }
    }

    @Test func runningOfflinePastTheLockPeriodEndsTheSessionAndPastTheWipePeriodErases() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.updateSettings(Self.lockAfter3WipeAfter10)
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            try device.goOffline()
            let app = try device.launch(.unlock(ServicesDevice.alicePasscode))
            #expect(try await app.manager.open().onboardingID == id)
            device.wallClock.advance(by: .seconds(2 * 86_400))
            await app.manager.enterBackground()
            #expect(await app.manager.session?.onboardingID == id, "within the lock period nothing changes")
            device.clock.advance(by: .seconds(10))
            #expect(try await app.manager.enterForeground() == .resume)
            device.wallClock.advance(by: .seconds(2 * 86_400))
            await app.manager.enterBackground()
            #expect(await app.manager.state == .closed)
            #expect(device.storeExists(id))

            let later = try device.launch(.unlock(ServicesDevice.alicePasscode), .signIn("alice"), .error(.cancel))
            await #expect(throws: FlowError.stopped) { try await later.manager.open() }
            device.wallClock.advance(by: .seconds(7 * 86_400))
            let erasing = try device.launch(.unlock(ServicesDevice.alicePasscode), .welcome(.demoMode))
            await #expect(throws: FlowError.stopped) { try await erasing.manager.open() }
            #expect(!device.storeExists(id))
        }
    }

    @Test func runningOfflinePastTheWipePeriodErasesInTheBackground() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.updateSettings(Self.lockAfter3WipeAfter10)
            let device = try ServicesDevice(server: server)
            let id = try await Self.onboardAlice(device)
            try device.goOffline()
            let app = try device.launch(.unlock(ServicesDevice.alicePasscode))
            #expect(try await app.manager.open().onboardingID == id)
            device.wallClock.advance(by: .seconds(11 * 86_400))
            await app.manager.enterBackground()
            #expect(await app.manager.state == .closed)
            #expect(!device.storeExists(id))
            #expect(try app.registry.users().isEmpty)
        }
    }
}

import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: a device shared by several users")
struct SharedDeviceStoryTests {
    @Test func twoUsersAreAddedSwitchedAndOneRemoved() async throws {
        // The server asks for no passcode and the device has biometrics: a shared device
        // still requires a passcode and never offers biometrics.
        let device = try Device(shared: true, biometrics: true, server: TestServer(requirement: .notRequired))
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let recorder = Recorder()
        await app.manager.addObserver { recorder.record("\($0)") }
        let alice = try await app.manager.open().onboardingID
        #expect(await app.manager.store?.isPasscodeProtected == true)
        #expect(app.presenter.presented(PasscodeCreateScreen.self).first?.offersBiometrics == false)
        #expect(try await app.manager.availablePasscodeActions() == [.changePasscode])

        app.presenter.append(.signIn("bob"), .create(Device.bobPasscode))
        let bob = try await app.manager.addUser().onboardingID
        #expect(try app.registry.users().map(\.displayName) == ["Alice", "Bob"])
        #expect(try app.registry.users().map(\.isPrimary) == [true, false])
        #expect(try await app.manager.store?.string(forKey: TestServer.tokenKey) == "token-of-bob")

        app.presenter.append(.unlock(Device.alicePasscode))
        #expect(try await app.manager.switchUser(to: alice).onboardingID == alice)
        #expect(try await app.manager.store?.string(forKey: TestServer.tokenKey) == "token-of-alice")

        try await app.manager.remove()
        try app.presenter.verifyFinished()
        #expect(await app.manager.state == .closed)
        #expect(!device.storeExists(alice))
        #expect(try app.registry.users().map(\.id) == [bob])
        #expect(
            recorder.all == [
                "userAdded(\(alice))", "userAdded(\(bob))", "userSwitched(to: \(alice))", "userRemoved(\(alice))",
            ]
        )

        // Bob's store is untouched: the next launch lists only him and opens his data.
        let relaunch = try device.launch(.userPicker(.selectNamed("Bob")), .unlock(Device.bobPasscode))
        #expect(try await relaunch.manager.open().onboardingID == bob)
        try relaunch.presenter.verifyFinished()
        let picker = try #require(relaunch.presenter.presented(UserPickerScreen.self).first)
        #expect(picker.users.map(\.displayName) == ["Bob"])
        #expect(try await relaunch.manager.store?.string(forKey: TestServer.tokenKey) == "token-of-bob")
        #expect(!device.logsHoldASecret)
    }

    @Test("a user with no open session is removed by ID; an open session or an unknown ID is refused")
    func aUserIsRemovedWithoutASession() async throws {
        let device = try Device(shared: true)
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let alice = try await app.manager.open().onboardingID
        app.presenter.append(.signIn("bob"), .create(Device.bobPasscode))
        let bob = try await app.manager.addUser().onboardingID
        await #expect(throws: SessionError.wrongState) { try await app.manager.remove(user: alice) }
        try await app.manager.close()
        await #expect(throws: SessionError.unknownUser) { try await app.manager.remove(user: UUID()) }

        try await app.manager.remove(user: alice)
        #expect(!device.storeExists(alice))
        #expect(device.storeExists(bob), "the other user's data is untouched")
        #expect(try app.registry.users().map(\.id) == [bob])
    }

    @Test func theUserPickerMarksTheLastUserAndCanAddOne() async throws {
        let device = try Device(shared: true)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let alice = try await first.manager.open().onboardingID
        try await first.manager.close()

        let app = try device.launch(.userPicker(.addUser), .signIn("bob"), .create(Device.bobPasscode))
        let bob = try await app.manager.open().onboardingID
        try app.presenter.verifyFinished()
        #expect(app.presenter.presented(UserPickerScreen.self).first?.current == alice)
        #expect(try app.registry.selectedUserID() == bob)
    }

    @Test(
        "the same person adding themselves again is offered their own user, unlocked with their passcode",
        arguments: [false, true]
    )
    func theSameServerUserIsOfferedTheirOwnUser(goingBack: Bool) async throws {
        let device = try Device(shared: true)
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let alice = try await app.manager.open().onboardingID
        app.presenter.append(.signIn("alice"))
        if goingBack {
            // Back goes to the picker, where she picks herself.
            app.presenter.append(.existingUser(.back), .userPicker(.selectNamed("Alice")))
        } else {
            app.presenter.append(.existingUser(.unlockExisting))
        }
        app.presenter.append(.unlock(Device.alicePasscode))

        #expect(try await app.manager.addUser().onboardingID == alice)
        try app.presenter.verifyFinished()
        let screen = try #require(app.presenter.presented(ExistingUserScreen.self).first)
        #expect(screen.situation == .alreadyOnboarded(existing: "Alice"))
        #expect(screen.title == "Already on This Device")
        #expect(screen.message == "Alice already has a user on this device, with their own passcode and data.")
        #expect(screen.unlockLabel == "Unlock as Alice" && !screen.allowsAddUser)
        #expect(!screen.message.contains(alice.uuidString), "no ID in what a person reads")
        #expect(try app.registry.users().count == 1)
        #expect(try device.root.storeIDs() == [alice])
        #expect(await app.manager.state.session?.onboardingID == alice)
    }

    @Test func aForgottenPasscodeIsResetByTheSameUserKeepingTheData() async throws {
        let device = try Device(shared: true)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let alice = try await first.manager.open().onboardingID
        try await first.manager.store?.put("fuel 42%", forKey: "check.fuel")
        try await first.manager.close()

        let app = try device.launch(
            .userPicker(.selectNamed("Alice")),
            .passcodeInput(.reset),
            .signIn("alice"),
            .create(Device.newPasscode)
        )
        #expect(try await app.manager.open().onboardingID == alice)
        try app.presenter.verifyFinished()
        #expect(try await app.manager.store?.string(forKey: "check.fuel") == "fuel 42%")
        try await app.manager.close()

        #expect(throws: SecureStoreError.wrongPasscode) { try device.openStore(alice, passcode: Device.alicePasscode) }
        let store = try device.openStore(alice, passcode: Device.newPasscode)
        #expect(try store.string(forKey: "check.fuel") == "fuel 42%")
        store.close()
    }

    @Test("another person at a passcode reset: offered their own user, or back to the first; never the data")
    func aPasscodeResetByAnotherUserOffersTheirOwn() async throws {
        let device = try Device(shared: true)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let alice = try await first.manager.open().onboardingID
        try await first.manager.store?.put("fuel 42%", forKey: "check.fuel")
        first.presenter.append(.signIn("bob"), .create(Device.bobPasscode))
        let bob = try await first.manager.addUser().onboardingID
        try await first.manager.close()

        // Bob signs in to reset Alice's passcode: he is offered his own user.
        let app = try device.launch(
            .userPicker(.selectNamed("Alice")),
            .passcodeInput(.reset),
            .signIn("bob"),
            .existingUser(.unlockExisting),
            .unlock(Device.bobPasscode)
        )
        #expect(try await app.manager.open().onboardingID == bob)
        try app.presenter.verifyFinished()
        let screen = try #require(app.presenter.presented(ExistingUserScreen.self).first)
        #expect(screen.situation == .otherPerson(resetting: "Alice", signedIn: "Bob"))
        #expect(screen.message == "You signed in as Bob. Only Alice can reset their own passcode.")
        #expect(screen.unlockLabel == "Unlock as Bob" && screen.backLabel == "Back to Alice")
        try await app.manager.close()

        // Someone with no user here: back to Alice's passcode, which still opens her data.
        let stranger = try device.launch(
            .userPicker(.selectNamed("Alice")),
            .passcodeInput(.reset),
            .signIn("carol"),
            .existingUser(.back),
            .unlock(Device.alicePasscode)
        )
        #expect(try await stranger.manager.open().onboardingID == alice)
        try stranger.presenter.verifyFinished()
        let unknown = try #require(stranger.presenter.presented(ExistingUserScreen.self).first)
        #expect(unknown.message == "Someone other than Alice signed in. Only Alice can reset their own passcode.")
        #expect(unknown.unlockLabel == nil && unknown.allowsAddUser, "a shared device can add them")
        #expect(try await stranger.manager.store?.string(forKey: "check.fuel") == "fuel 42%")
        try await stranger.manager.close()

        // Or she adds herself as a new user: she signs in for her own onboarding.
        let newcomer = try device.launch(
            .userPicker(.selectNamed("Alice")),
            .passcodeInput(.reset),
            .signIn("carol"),
            .existingUser(.addUser),
            .signIn("carol"),
            .create(Device.newPasscode)
        )
        let carol = try await newcomer.manager.open().onboardingID
        try newcomer.presenter.verifyFinished()
        #expect(![alice, bob].contains(carol))
        #expect(try newcomer.registry.users().map(\.displayName) == ["Alice", "Bob", "Carol"])
        #expect(try device.openStore(alice, passcode: Device.alicePasscode).string(forKey: "check.fuel") == "fuel 42%")
    }

    @Test("at a shared device's passcode screen the next person switches user, or adds themselves, without quitting")
    func thePasscodeScreenSwitchesAndAddsUsers() async throws {
        let device = try Device(shared: true)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        _ = try await first.manager.open()
        first.presenter.append(.signIn("bob"), .create(Device.bobPasscode))
        let bob = try await first.manager.addUser().onboardingID
        try await first.manager.close()

        // At launch the picker is answered for Alice, but Bob holds the device.
        let app = try device.launch(
            .userPicker(.selectNamed("Alice")),
            .passcodeInput(.switchUser),
            .userPicker(.selectNamed("Bob")),
            .unlock(Device.bobPasscode)
        )
        #expect(try await app.manager.open().onboardingID == bob)
        try app.presenter.verifyFinished()
        let screen = try #require(app.presenter.presented(PasscodeInputScreen.self).first)
        #expect(screen.offersUserSwitch)

        // Locked past the timeout, the lock screen: Carol starts her shift and adds herself.
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(300))
        app.presenter.append(.passcodeInput(.addUser), .signIn("carol"), .create(Device.newPasscode))
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        #expect(try app.registry.users().map(\.displayName) == ["Alice", "Bob", "Carol"])
        let carol = try #require(await app.manager.state.session?.onboardingID)
        #expect(carol != bob)

        // And at the next lock, back to Bob through the picker.
        await app.manager.enterBackground()
        device.clock.advance(by: .seconds(300))
        app.presenter.append(
            .passcodeInput(.switchUser),
            .userPicker(.selectNamed("Bob")),
            .unlock(Device.bobPasscode)
        )
        #expect(try await app.manager.enterForeground() == .unlock)
        try app.presenter.verifyFinished()
        #expect(await app.manager.state.session?.onboardingID == bob)
    }

    @Test("a personal device's passcode screen offers no user switch")
    func aPersonalDeviceOffersNoSwitch() async throws {
        let device = try Device()
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        _ = try await app.manager.open()
        try await app.manager.close()
        let again = try device.launch(.passcodeInput(.switchUser, .enter(Device.alicePasscode)))
        _ = try await again.manager.open()
        try again.presenter.verifyFinished()
        #expect(try #require(again.presenter.presented(PasscodeInputScreen.self).first).offersUserSwitch == false)
    }

    @Test func withoutARecoveryKeyAResetStartsAnEmptyStore() async throws {
        let device = try Device(server: TestServer(sendsRecoveryKeys: false))
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let alice = try await first.manager.open().onboardingID
        try await first.manager.store?.put("fuel 42%", forKey: "check.fuel")
        try await first.manager.close()

        let app = try device.launch(.passcodeInput(.reset), .signIn("alice"), .create(Device.newPasscode))
        #expect(try await app.manager.open().onboardingID == alice)
        try app.presenter.verifyFinished()
        #expect(try await app.manager.store?.string(forKey: "check.fuel") == nil)
        #expect(try await app.manager.store?.string(forKey: TestServer.tokenKey) == "token-of-alice")
    }

    @Test func observersAreToldInTheOrderTheyWereAdded() async throws {
        let device = try Device(shared: true)
        let app = try device.launch(
            .signIn("alice"),
            .create(Device.alicePasscode),
            .signIn("bob"),
            .create(Device.bobPasscode)
        )
        let recorder = Recorder()
        await app.manager.addObserver { recorder.record("first \($0)") }
        await app.manager.addObserver { recorder.record("second \($0)") }
        let alice = try await app.manager.open().onboardingID
        let bob = try await app.manager.addUser().onboardingID
        #expect(
            recorder.all == [
                "first userAdded(\(alice))", "second userAdded(\(alice))",
                "first userAdded(\(bob))", "second userAdded(\(bob))",
            ]
        )
    }

    @Test func singleUserDevicesRefuseUserSwitching() async throws {
        let device = try Device()
        let app = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await app.manager.open()
        await #expect(throws: UserError.notMultiUser) { try await app.manager.addUser() }
        await #expect(throws: UserError.notMultiUser) { try await app.manager.switchUser(to: UUID()) }
    }

    @Test func aSharedDeviceCannotShareOneStoreBetweenUsers() throws {
        let device = try Device(shared: true, options: .init(storeID: UUID()))
        #expect(throws: SessionError.misconfigured) { try device.launch() }
    }

    @Test func aMultiUserManagerNeedsASharedDeviceStoreManager() throws {
        let device = try Device()
        #expect(throws: SessionError.misconfigured) {
            try SessionManager(
                flows: FlowController(provider: StepListProvider([])),
                users: MultiUserIDManager(registry: device.registry),
                storeManager: device.storeManager,
                ui: RecordingSessionUI(),
                presenter: ScriptedPresenter()
            )
        }
    }
}

import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore
import GangwayTesting
import Testing

@Suite("Stories: the server changes the passcode policy")
struct PolicyTransitionStoryTests {
    static var noBiometrics: PasscodePolicy {
        var policy = PasscodePolicy.standard
        policy.allowsBiometrics = false
        return policy
    }

    static var skippable: PasscodePolicy {
        var policy = noBiometrics
        policy.allowsSkip = true
        return policy
    }

    /// Rules alice's passcode (`Fuel-Check-2468`, 15 characters) breaks: a change is forced.
    static var stricter: PasscodePolicy {
        var policy = noBiometrics
        policy.minimumLength = 16
        policy.requiresDigit = true
        return policy
    }

    /// How a transition's story starts and ends.
    struct Case: Sendable, CustomTestStringConvertible {
        let transition: PasscodePolicyTransition
        /// The requirement at onboarding, and whether biometrics were turned on then.
        let before: PasscodeRequirement
        let biometricsOn: Bool
        /// The requirement the server sends later.
        let after: PasscodeRequirement
        /// The screens of the relaunch after the feedback screen.
        let answers: [ScriptedPresenter.Answer]
        let protectedAfter: Bool
        let biometricsAfter: Bool

        var testDescription: String { transition.rawValue }
    }

    static let cases: [Case] = [
        Case(
            transition: .noneToPasscode,
            before: .notRequired,
            biometricsOn: false,
            after: .required(noBiometrics),
            answers: [.create(Device.newPasscode)],
            protectedAfter: true,
            biometricsAfter: false
        ),
        Case(
            transition: .noneToPasscodeWithBiometrics,
            before: .notRequired,
            biometricsOn: false,
            after: .required(.standard),
            answers: [.create(Device.newPasscode, biometrics: true)],
            protectedAfter: true,
            biometricsAfter: true
        ),
        Case(
            transition: .passcodeToPasscode,
            before: .required(noBiometrics),
            biometricsOn: false,
            after: .required(stricter),
            answers: [
                // The passcode typed at the launch is not asked again: the new one, twice.
                .passcodeChange(.enter("Night-Shift-9753-x"), .enter("Night-Shift-9753-x"))
            ],
            protectedAfter: true,
            biometricsAfter: false
        ),
        Case(
            transition: .passcodeToNone,
            before: .required(noBiometrics),
            biometricsOn: false,
            after: .notRequired,
            answers: [],
            protectedAfter: false,
            biometricsAfter: false
        ),
        Case(
            transition: .passcodeToPasscodeWithBiometricsOffered,
            before: .required(noBiometrics),
            biometricsOn: false,
            after: .required(.standard),
            answers: [],
            protectedAfter: true,
            biometricsAfter: false
        ),
        Case(
            transition: .passcodeToPasscodeWithSkipOffered,
            before: .required(noBiometrics),
            biometricsOn: false,
            after: .required(skippable),
            answers: [],
            protectedAfter: true,
            biometricsAfter: false
        ),
        Case(
            transition: .biometricsToPasscodeOnly,
            before: .required(.standard),
            biometricsOn: true,
            after: .required(noBiometrics),
            answers: [],
            protectedAfter: true,
            biometricsAfter: false
        ),
        Case(
            transition: .biometricsToNone,
            before: .required(.standard),
            biometricsOn: true,
            after: .notRequired,
            answers: [],
            protectedAfter: false,
            biometricsAfter: false
        ),
    ]

    @Test(arguments: cases)
    func eachTransitionIsAnnouncedThenApplied(_ story: Case) async throws {
        let server = TestServer(requirement: story.before)
        let device = try Device(biometrics: true, server: server)
        let onboarding: [ScriptedPresenter.Answer] =
            switch story.before {
            case .notRequired: [.signIn("alice")]
            case .required(let policy):
                [
                    .signIn("alice"),
                    .create(Device.alicePasscode, biometrics: policy.allowsBiometrics ? story.biometricsOn : nil),
                ]
            }
        let first = try device.launch(onboarding)
        try await first.manager.open()
        try first.presenter.verifyFinished()
        #expect(await first.manager.store?.isBiometricUnlockEnabled == story.biometricsOn)
        try await first.manager.close()

        server.requirement = story.after
        // Biometrics, when on, open the store without a passcode screen.
        let unlock: [ScriptedPresenter.Answer] =
            story.before == .notRequired || story.biometricsOn ? [] : [.unlock(Device.alicePasscode)]
        let app = try device.launch(unlock + [.acknowledge] + story.answers)
        try await app.manager.open()
        try app.presenter.verifyFinished()

        let feedback = try #require(app.presenter.presented(FeedbackScreen.self).first)
        #expect(feedback.transition == story.transition)
        let store = try #require(await app.manager.store)
        #expect(store.isPasscodeProtected == story.protectedAfter)
        #expect(store.isBiometricUnlockEnabled == story.biometricsAfter)
        #expect(store.policy == story.after.policy.flatMap { story.protectedAfter ? $0 : nil })
        if story.transition == .passcodeToPasscodeWithBiometricsOffered {
            #expect(try await app.manager.availablePasscodeActions().contains(PasscodeAction.enableBiometrics))
        }
        if story.transition == .passcodeToPasscodeWithSkipOffered {
            #expect(try await app.manager.availablePasscodeActions().contains(PasscodeAction.turnOffPasscode))
        }
        #expect(try store.string(forKey: TestServer.tokenKey) == "token-of-alice")

        // Applied once: the next launch shows no feedback.
        try await app.manager.close()
        let again = try device.launch(
            story.protectedAfter && !story.biometricsAfter ? [.unlock(passcode(after: story))] : []
        )
        try await again.manager.open()
        try again.presenter.verifyFinished()
        #expect(!device.logsHoldASecret)
    }

    func passcode(after story: Case) -> Secret {
        switch story.transition {
        case .noneToPasscode, .noneToPasscodeWithBiometrics: Device.newPasscode
        case .passcodeToPasscode: "Night-Shift-9753-x"
        default: Device.alicePasscode
        }
    }

    @Test func limitsAloneChangeWithoutAskingTheUser() async throws {
        let server = TestServer(requirement: .required(Self.noBiometrics))
        let device = try Device(server: server)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()

        var looser = Self.noBiometrics
        looser.retryLimit = 5
        looser.lockTimeout = .seconds(30)
        server.requirement = .required(looser)
        let app = try device.launch(.unlock(Device.alicePasscode))
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(await app.manager.store?.policy == looser)
    }

    @Test func aPolicyChangeCutShortResumesAtTheNextLaunch() async throws {
        let server = TestServer(requirement: .required(Self.noBiometrics))
        let device = try Device(server: server)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let session = try await first.manager.open()
        try await first.manager.close()

        // The app dies on the change screen: the script ends after the announcement.
        server.requirement = .required(Self.stricter)
        let crashed = try device.launch(.unlock(Device.alicePasscode), .acknowledge)
        await #expect(throws: FlowError.stopped) { try await crashed.manager.open() }
        #expect(crashed.presenter.presentedKinds == [.passcodeInput, .feedback, .passcodeChange])

        // Next launch, offline: the recorded change resumes without the server.
        server.isOnline = false
        let resumed = try device.launch(
            .unlock(Device.alicePasscode),
            .acknowledge,
            // The passcode just typed to open the store is not asked again.
            .passcodeChange(.enter("Night-Shift-9753-x"), .enter("Night-Shift-9753-x"))
        )
        try await resumed.manager.open()
        try resumed.presenter.verifyFinished()
        let change = try #require(resumed.presenter.presented(PasscodeChangeScreen.self).first)
        #expect(!change.allowsCancel)
        #expect(await resumed.manager.store?.policy == Self.stricter)
        try await resumed.manager.close()

        // Finished: nothing resumes again.
        let later = try device.launch(.unlock("Night-Shift-9753-x"))
        #expect(try await later.manager.open().onboardingID == session.onboardingID)
        try later.presenter.verifyFinished()
    }

    @Test("a forced change at a launch asks only the new passcode, and the typed one is not kept after the flow")
    func aForcedChangeAtLaunchDoesNotAskThePasscodeJustTyped() async throws {
        let server = TestServer(requirement: .required(Self.noBiometrics))
        let device = try Device(server: server)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        let session = try await first.manager.open()
        try await first.manager.close()

        server.requirement = .required(Self.stricter)
        let app = try device.launch(
            .unlock(Device.alicePasscode),
            .acknowledge,
            .passcodeChange(.enter("Night-Shift-9753-x"), .enter("Night-Shift-9753-x"))
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        let change = try #require(app.presenter.presented(PasscodeChangeScreen.self).first)
        #expect(change.phase == .enter, "it starts at the new passcode, not the current one")
        let names = try #require(await app.manager.flowContext?.info.names)
        #expect(
            !names.contains { $0.localizedCaseInsensitiveContains("passcode") && $0 != "gangway.passcodeRequirement" }
        )
        try await app.manager.close()
        try device.openStore(session.onboardingID, passcode: "Night-Shift-9753-x").close()
    }

    @Test("opened by the biometric, a forced change at a launch asks the current passcode: none was typed")
    func aForcedChangeAfterTheBiometricAsksTheCurrentPasscode() async throws {
        let server = TestServer(requirement: .required(.standard))
        let device = try Device(biometrics: true, server: server)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode, biometrics: true))
        try await first.manager.open()
        try await first.manager.close()

        var longer = PasscodePolicy.standard
        longer.minimumLength = 16
        server.requirement = .required(longer)
        let app = try device.launch(
            .acknowledge,
            .passcodeChange(.enter(Device.alicePasscode), .enter("Night-Shift-9753-x"), .enter("Night-Shift-9753-x"))
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(!app.presenter.presentedKinds.contains(.passcodeInput), "the biometric opened the store")
        #expect(await app.manager.store?.policy == longer)
    }

    @Test func aNewPasscodeMustMeetTheNewRules() async throws {
        let server = TestServer(requirement: .required(Self.noBiometrics))
        let device = try Device(server: server)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()

        server.requirement = .required(Self.stricter)
        let app = try device.launch(
            .unlock(Device.alicePasscode),
            .acknowledge,
            // Too short for the new rules: the screen keeps asking.
            .passcodeChange(
                .enter("Gate-42"),
                .enter("Night-Shift-9753-x"),
                .enter("Night-Shift-9753-x")
            )
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        #expect(await app.manager.store?.policy == Self.stricter)
    }

    /// `stricter` with one rule looser and one stricter: a digit no longer required, a
    /// symbol required instead.
    static var mixed: PasscodePolicy {
        var policy = stricter
        policy.requiresDigit = false
        policy.requiresSpecial = true
        return policy
    }

    @Test(
        "with the reference's rule, a forced passcode change says which way the rules moved: stricter, looser or both; it is asked either way",
        arguments: [
            (PolicyTransitionStoryTests.stricter, PasscodeRuleChange.stricter, "made the passcode rules stricter"),
            (
                PolicyTransitionStoryTests.noBiometrics, .looser,
                "relaxed the passcode rules: a simpler passcode is now allowed"
            ),
            (PolicyTransitionStoryTests.mixed, .mixed, "some are stricter, some allow more"),
        ]
    )
    func eachDirectionTellsItsReason(after: PasscodePolicy, change: PasscodeRuleChange, reason: String) async throws {
        // Onboarded under the standard rules before stricter ones, under the strict ones
        // before looser or mixed ones.
        let before = change == .stricter ? Self.noBiometrics : Self.stricter
        #expect(before.ruleChange(to: after) == change)
        let server = TestServer(requirement: .required(before))
        let device = try Device(server: server, options: StoreManager.Options(changesPasscodeAtEveryNewRule: true))
        let start: Secret = "Night-Shift-9753-x"
        let first = try device.launch(.signIn("alice"), .create(start))
        try await first.manager.open()
        try await first.manager.close()

        server.requirement = .required(after)
        let next: Secret = "Day-Shift-8642-y!"
        let app = try device.launch(
            .unlock(start),
            .acknowledge,
            .passcodeChange(.enter(next), .enter(next))
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        let feedback = try #require(app.presenter.presented(FeedbackScreen.self).first)
        #expect(feedback.transition == .passcodeToPasscode)
        #expect(feedback.texts.detail.contains(reason), "\(feedback.texts.detail)")
        #expect(!feedback.texts.detail.contains("does not meet"))
        let changeScreen = try #require(app.presenter.presented(PasscodeChangeScreen.self).first)
        #expect(!changeScreen.allowsCancel, "mandatory in every direction")
        #expect(await app.manager.store?.policy == after)
    }

    @Test(
        "new rules the passcode just typed meets are announced and the passcode kept, looser, mixed or stricter; a change is offered"
    )
    func rulesThePasscodeMeetsKeepIt() async throws {
        for (before, after) in [
            (Self.stricter, Self.noBiometrics), (Self.stricter, Self.mixed), (Self.noBiometrics, Self.stricter),
        ] {
            let server = TestServer(requirement: .required(before))
            let device = try Device(server: server)
            // Long, with a digit and a symbol: it meets each of the rules here.
            let start: Secret = "Night-Shift-9753-x"
            let first = try device.launch(.signIn("alice"), .create(start))
            let session = try await first.manager.open()
            try await first.manager.close()

            server.requirement = .required(after)
            let app = try device.launch(.unlock(start), .acknowledge)
            try await app.manager.open()
            try app.presenter.verifyFinished()
            let feedback = try #require(app.presenter.presented(FeedbackScreen.self).first)
            #expect(feedback.texts == StoreManager.Strings().feedback.keptPasscode)
            #expect(feedback.texts.secondaryButton != nil, "a change is offered")
            #expect(!app.presenter.presentedKinds.contains(.passcodeChange), "and not forced")
            #expect(await app.manager.store?.policy == after, "the new rules are in force")
            try await app.manager.close()
            try device.openStore(session.onboardingID, passcode: start).close()
        }
    }

    @Test("offered a change under new rules it meets, the person may take it")
    func aChangeOfferedMayBeTaken() async throws {
        let server = TestServer(requirement: .required(Self.stricter))
        let device = try Device(server: server)
        let start: Secret = "Night-Shift-9753-x"
        let first = try device.launch(.signIn("alice"), .create(start))
        let session = try await first.manager.open()
        try await first.manager.close()

        server.requirement = .required(Self.noBiometrics)
        let next: Secret = "Day-Shift-8642-y!"
        let app = try device.launch(
            .unlock(start),
            .feedback(.secondary),
            .passcodeChange(.enter(next), .enter(next))
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        let change = try #require(app.presenter.presented(PasscodeChangeScreen.self).first)
        #expect(change.allowsCancel, "offered, not forced")
        try await app.manager.close()
        try device.openStore(session.onboardingID, passcode: next).close()
    }

    @Test("new rules the passcode just typed breaks force a change, as ever")
    func rulesThePasscodeBreaksForceAChange() async throws {
        let server = TestServer(requirement: .required(Self.noBiometrics))
        let device = try Device(server: server)
        let first = try device.launch(.signIn("alice"), .create(Device.alicePasscode))
        try await first.manager.open()
        try await first.manager.close()
        #expect(
            !Self.stricter.evaluate(Device.alicePasscode).isAcceptable,
            "the story needs a passcode the rules break"
        )

        server.requirement = .required(Self.stricter)
        let next: Secret = "Day-Shift-8642-y!"
        let app = try device.launch(
            .unlock(Device.alicePasscode),
            .acknowledge,
            .passcodeChange(.enter(next), .enter(next))
        )
        try await app.manager.open()
        try app.presenter.verifyFinished()
        let feedback = try #require(app.presenter.presented(FeedbackScreen.self).first)
        #expect(feedback.texts.secondaryButton == nil && feedback.texts.detail.contains("stricter"))
        let change = try #require(app.presenter.presented(PasscodeChangeScreen.self).first)
        #expect(!change.allowsCancel)
    }
}

import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayProtocol
import GangwayScreens
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Testing

@Suite("Stories: a device onboards against the server over HTTP")
struct OnboardingAgainstServerTests {
    @Test func onboardsByEmailThenRestoresWithThePasscode() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let first = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            let session = try await first.manager.open()
            try first.presenter.verifyFinished()
            #expect(first.presenter.presentedKinds == [.welcome, .signIn, .passcodeCreate])
            // The server's policy (8 characters, 10 tries, 5 minutes) is the store's.
            let store = try #require(await first.manager.store)
            #expect(store.policy?.minimumLength == 8)
            #expect(store.policy?.retryLimit == 10)
            #expect(store.policy?.lockTimeout == .seconds(300))
            try store.put(Data("fuel 82%".utf8), forKey: "check.A320.fuel")
            try await first.manager.close()

            let again = try device.launch(.unlock(ServicesDevice.alicePasscode))
            #expect(try await again.manager.open().onboardingID == session.onboardingID)
            try again.presenter.verifyFinished()
            #expect(try await again.manager.store?.data(forKey: "check.A320.fuel") == Data("fuel 82%".utf8))
            #expect(!device.logsHoldASecret)
        }
    }

    @Test func legalTextsOnTheWelcomeScreenMustBeAcceptedAndTheAcceptanceIsRecorded() async throws {
        let links = [
            WelcomeScreen.Link(title: "Terms of Use", url: "https://airline.example/terms", version: "2026.11"),
            WelcomeScreen.Link(title: "Privacy Notice", url: "https://airline.example/privacy", version: "3"),
        ]
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(
                server: server,
                termsLinks: links,
                welcomeImages: (top: "airline-logo", bottom: "partner-logo")
            )
            let email = WelcomeScreen.Activation.email("alice@airline.example")
            let first = try device.launch(
                // Going on without the box ticked is refused; ticking it lets the person on.
                .welcome(.activate(email), .acceptTerms(true), .activate(email)),
                .signIn("alice"),
                .create(ServicesDevice.alicePasscode)
            )
            let session = try await first.manager.open()
            try first.presenter.verifyFinished()
            #expect(first.presenter.presented(WelcomeScreen.self).first?.requiresTerms == true)
            // The app's images reach the screen from its welcome options.
            #expect(first.presenter.presented(WelcomeScreen.self).first?.topImage == "airline-logo")
            #expect(first.presenter.presented(WelcomeScreen.self).first?.bottomImage == "partner-logo")
            let store = try #require(await first.manager.store)
            let acceptance = try #require(try TermsAcceptance.load(from: store))
            #expect(acceptance.documents == links)
            #expect(acceptance.acceptedAt == device.wallClock.date)
            #expect(device.logs.text.contains("terms accepted"))
            try await first.manager.close()

            // Kept with the user's data, and not asked again at a launch.
            let again = try device.launch(.unlock(ServicesDevice.alicePasscode))
            #expect(try await again.manager.open().onboardingID == session.onboardingID)
            try again.presenter.verifyFinished()
            #expect(try TermsAcceptance.load(from: #require(await again.manager.store)) == acceptance)
        }
    }

    @Test(arguments: [
        (
            MobileServicesFlowProvider.AgreementsPlacement.beforePasscode,
            [ScreenKind.welcome, .signIn, .eula, .passcodeCreate]
        ),
        (.afterPasscode, [.welcome, .signIn, .passcodeCreate, .eula]),
    ])
    func theAgreementsGoWhereTheAppPlacesThem(
        placement: MobileServicesFlowProvider.AgreementsPlacement,
        order: [ScreenKind]
    ) async throws {
        try await TestServer.run(seed: .checks) { server in
            let eula = EULAStep(version: "2026.11", text: "Terms")
            let device = try ServicesDevice(server: server, agreements: [eula], placement: placement)
            let screens: [ScriptedPresenter.Answer] =
                order.dropFirst(2).first == .eula
                ? [.eula(.accept), .create(ServicesDevice.alicePasscode)]
                : [.create(ServicesDevice.alicePasscode), .eula(.accept)]
            let app = try device.launch([.byEmail, .signIn("alice")] + screens)
            try await app.manager.open()
            try app.presenter.verifyFinished()
            #expect(app.presenter.presentedKinds == order)
            #expect(try EULAStep.acceptedVersion(in: #require(await app.manager.store)) == "2026.11")
            try await app.manager.close()

            // Declined at either place, nothing stays on the device.
            let other = try ServicesDevice(server: server, agreements: [eula], placement: placement)
            let declining: [ScriptedPresenter.Answer] =
                placement == .beforePasscode
                ? [.eula(.decline)] : [.create(ServicesDevice.alicePasscode), .eula(.decline)]
            let declined = try other.launch([.byEmail, .signIn("alice")] + declining)
            let error = await #expect(throws: FlowError.stopped) { try await declined.manager.open() }
            #expect((error?.underlying as? ConsentError) == .eulaDeclined)
            #expect(try other.root.storeIDs().isEmpty)
        }
    }

    @Test(
        "the permissions come right after the passcode wherever the agreements go, and only at the onboarding",
        arguments: [
            (
                MobileServicesFlowProvider.AgreementsPlacement.beforePasscode,
                [ScreenKind.welcome, .signIn, .eula, .passcodeCreate, .permission]
            ),
            (.afterPasscode, [.welcome, .signIn, .passcodeCreate, .permission, .eula]),
        ]
    )
    func thePermissionsFollowThePasscode(
        placement: MobileServicesFlowProvider.AgreementsPlacement,
        order: [ScreenKind]
    ) async throws {
        try await TestServer.run(seed: .checks) { server in
            // The platform's question is dismissed: the camera stays undecided.
            let platform = ScriptedPermissions(answers: [.camera: .notDetermined])
            let device = try ServicesDevice(
                server: server,
                agreements: [EULAStep(version: "2026.11", text: "Terms")],
                placement: placement,
                permissions: PermissionsStep([.init(.camera)], platform: platform)
            )
            let answers: [ScriptedPresenter.Answer] = order.dropFirst(2).map { kind in
                switch kind {
                case .eula: .eula(.accept)
                case .passcodeCreate: .create(ServicesDevice.alicePasscode)
                default: .permission(.allow)
                }
            }
            let app = try device.launch([.byEmail, .signIn("alice")] + answers)
            let session = try await app.manager.open()
            try app.presenter.verifyFinished()
            #expect(app.presenter.presentedKinds == order)
            #expect(platform.asked == [.camera])
            try await app.manager.close()

            // Still undecided, and yet a launch asks nothing: asked once, at the onboarding.
            #expect(await platform.status(of: .camera) == .notDetermined)
            let again = try device.launch(.unlock(ServicesDevice.alicePasscode))
            #expect(try await again.manager.open().onboardingID == session.onboardingID)
            try again.presenter.verifyFinished()
            #expect(platform.asked == [.camera])
        }
    }

    @Test func withoutLegalTextsNothingIsRecorded() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.byEmail, .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            #expect(app.presenter.presented(WelcomeScreen.self).first?.requiresTerms == false)
            #expect(try TermsAcceptance.load(from: #require(await app.manager.store)) == nil)
        }
    }

    @Test func aManagedConfigurationSkipsActivation() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let managed =
                #"{"serverURL": "\#(server.url)", "appID": "checks", "appName": "Ground checks", "authType": "basic"}"#
            try Data(managed.utf8).write(to: device.managedFile)
            let app = try device.launch(.welcome(.signIn), .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try app.presenter.verifyFinished()
            #expect(app.presenter.presented(WelcomeScreen.self).first?.configuration == .configured)
            #expect(try device.configurationStore.load()?.serverURL == server.url)
        }
    }

    @Test func aWrongPasswordShowsTheServersMessageAndAsksAgain() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(
                .byEmail,
                .signIn("alice", password: "not-her-password"),
                .signIn("alice"),
                .create(ServicesDevice.alicePasscode)
            )
            try await app.manager.open()
            try app.presenter.verifyFinished()
            let screens = app.presenter.presented(SignInScreen.self)
            #expect(screens.count == 2)
            #expect(screens.first?.message == nil)
            let message = try #require(screens.last?.message)
            #expect(!message.isEmpty && !message.contains("not-her-password"))
        }
    }

    @Test func throttlingShowsWhenToTryAgain() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let wrong = (0..<6).map { _ in ScriptedPresenter.Answer.signIn("alice", password: "guess") }
            let app = try device.launch([.byEmail] + wrong + [.signIn(.cancel)])
            await #expect(throws: FlowError.stopped) { try await app.manager.open() }
            let last = try #require(app.presenter.presented(SignInScreen.self).last)
            let wait = try #require(last.retryAfter)
            #expect(wait >= .seconds(1) && wait <= .seconds(30))
            #expect(last.throttleNotice?.contains("\(wait.components.seconds) seconds") == true)
            #expect(last.message == nil, "said once, by the notice: \(last.message ?? "")")
            // Nothing half-onboarded stays.
            #expect(try app.registry.users().isEmpty)
        }
    }

    @Test("an app opened by an activation link is configured by it: the welcome screen goes straight to the sign-in")
    func openedByAnActivationLink() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server, launchLink: try await server.activationLink())
            let app = try device.launch(.welcome(.signIn), .signIn("alice"), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try app.presenter.verifyFinished()
            let welcome = try #require(app.presenter.presented(WelcomeScreen.self).first)
            #expect(welcome.configuration == .configured, "no activation asked")
            #expect(try device.configurationStore.load()?.serverURL == server.url)

            // A link that does not verify configures nothing: it is said, and the person
            // activates another way.
            let other = try ServicesDevice(server: server, launchLink: "gangway://activate?payload=e30&signature=AAAA")
            let refused = try other.launch(
                .error(.cancel),
                .welcome(.activate(.email("alice@airline.example"))),
                .signIn("alice"),
                .create(ServicesDevice.alicePasscode)
            )
            try await refused.manager.open()
            try refused.presenter.verifyFinished()
            #expect(
                refused.presenter.presented(ErrorScreen.self).first?.message == ConfigurationError.badSignature.summary
            )
            #expect(refused.presenter.presented(WelcomeScreen.self).first?.configuration != .configured)
            #expect(try other.configurationStore.load()?.serverURL == server.url)
        }
    }

    @Test func activatesWithASignedLinkAndRefusesATamperedOne() async throws {
        try await TestServer.run(seed: .checks) { server in
            let link = try await server.activationLink()
            var tampered = try #require(URLComponents(string: link))
            let payload = try #require(tampered.queryItems?.first { $0.name == "payload" }?.value)
            var json = try #require(Data(base64URLEncoded: payload))
            json = Data(
                String(decoding: json, as: UTF8.self).replacingOccurrences(of: "127.0.0.1", with: "10.6.6.6").utf8
            )
            tampered.queryItems = [
                URLQueryItem(name: "payload", value: json.base64URLEncoded),
                tampered.queryItems!.first { $0.name == "signature" }!,
            ]
            let device = try ServicesDevice(server: server)
            let app = try device.launch(
                .welcome(.activate(.link(tampered.string!))),
                .error(.retry),
                .welcome(.activate(.link(link))),
                .signIn("alice"),
                .create(ServicesDevice.alicePasscode)
            )
            try await app.manager.open()
            try app.presenter.verifyFinished()
            let error = try #require(app.presenter.presented(ErrorScreen.self).first)
            #expect(error.message == ConfigurationError.badSignature.summary)
            #expect(try device.configurationStore.load()?.serverURL == server.url)
        }
    }

    @Test func demoModeEndsTheFlowWithADistinctResult() async throws {
        try await TestServer.run(seed: .checks) { server in
            let device = try ServicesDevice(server: server)
            let app = try device.launch(.welcome(.demoMode))
            do {
                try await app.manager.open()
                Issue.record("demo mode opened a session")
            } catch let error as FlowError {
                #expect(error.underlying as? ServiceFlowError == .demoModeChosen)
            }
            #expect(try device.configurationStore.load() == nil)
            #expect(try app.registry.users().isEmpty)
        }
    }

    @Test func anInactiveVersionShowsAnErrorScreenAndStops() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await server.admin(.patch, "/admin/apps/checks", json: #"{"minimumVersion": "2.0"}"#)
            let device = try ServicesDevice(server: server, appVersion: "1.4.0")
            let app = try device.launch(.byEmail, .error(.cancel))
            do {
                try await app.manager.open()
                Issue.record("an inactive version onboarded")
            } catch let error as FlowError {
                #expect(error.underlying as? ServiceFlowError == .appVersionInactive)
            }
            let screen = try #require(app.presenter.presented(ErrorScreen.self).first)
            #expect(screen.advice?.contains("2.0") == true)
        }
    }
}

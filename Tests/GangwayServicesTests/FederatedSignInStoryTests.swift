import Foundation
import GangwayFlows
import GangwayScreens
import GangwayServerStorage
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import Synchronization
import Testing

@Suite(
    "Stories: people sign in at the company's OpenID Connect provider, through the server, on a device",
    .enabled(if: TestIdentityProvider.isInstalled, "needs oidc-provider-mock in .build-oidc/venv (see .ci/run)"),
    .tags(.slow),
    .skipsTags
)
struct FederatedSignInStoryTests {
    /// The app federates to `provider`; alice and bob are the people with subjects
    /// `idp-alice` and `idp-bob` there.
    static func federate(_ server: RunningTestServer, to provider: TestIdentityProvider) async throws {
        try await server.admin(
            .put,
            "/admin/apps/checks/authentication",
            json: """
                {"type": "oauth2", "redirectURIs": ["http://127.0.0.1/callback"],
                 "provider": {"issuer": "\(provider.issuer)", "clientID": "gangway-checks", "clientSecret": "s3cret-at-idp"}}
                """
        )
        for user in ["alice", "bob"] {
            try await server.admin(
                .post,
                "/admin/users/\(user)/identities",
                json: #"{"issuer": "\#(provider.issuer)", "subject": "idp-\#(user)"}"#
            )
        }
    }

    final class Visits: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// Who is at the browser now: the subject they sign in as at the provider.
    final class Person: Sendable {
        private let current: Mutex<String>
        init(_ subject: String) { current = Mutex(subject) }
        var subject: String {
            get { current.withLock { $0 } }
            set { current.withLock { $0 = newValue } }
        }
    }

    static func person(
        _ server: RunningTestServer,
        _ provider: TestIdentityProvider,
        subject: String,
        visits: Visits
    ) -> @Sendable (URL) async throws -> Void {
        person(server, provider, Person(subject), visits: visits)
    }

    /// A person in a browser, by HTTP as a browser does it: the app's sign-in page sends
    /// them to the provider, they sign in there as `person`'s subject, the provider sends
    /// them back to the server (with the server's cookie), they allow the app on the
    /// consent page, and the server sends them on to the app's loopback address.
    static func person(
        _ server: RunningTestServer,
        _ provider: TestIdentityProvider,
        _ person: Person,
        visits: Visits = Visits()
    ) -> @Sendable (URL) async throws -> Void {
        { page in
            let subject = person.subject
            visits.add()
            let query = URLComponents(url: page, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
            let browser = PageBrowser(server)
            let out = try await browser.get(page.path + "?" + query)
            guard out.status == .seeOther, let location = out.headers[.location] else {
                throw TestServerError("the sign-in page answered \(out.status)")
            }
            let back = try #require(URLComponents(string: try await provider.signIn(at: location, subject: subject)))
            let consent = try await browser.get(back.path + "?" + (back.percentEncodedQuery ?? ""))
            // The consent page: the person lets the app in.
            guard consent.status == .ok, consent.text.contains("name=\"consent\"") else {
                throw TestServerError("the server's callback answered \(consent.status)")
            }
            let returned = try await browser.submit(consent, to: back.path, [("decision", "approve")])
            guard returned.status == .seeOther, let app = returned.headers[.location] else {
                throw TestServerError("the consent page answered \(returned.status)")
            }
            try await AuthorizationCodeSignInTests.follow(app)
        }
    }

    @Test(
        "first launch at the provider, a relaunch that asks nothing, a silent refresh, a session ended mid-work there"
    )
    func federatedLifecycle() async throws {
        try await TestIdentityProvider.using { provider in
            try await TestServer.run(seed: .checks) { server in
                try await Self.federate(server, to: provider)
                let visits = Visits()
                let browser = LoopbackBrowser(open: Self.person(server, provider, subject: "idp-alice", visits: visits))
                let device = try ServicesDevice(server: server, browser: browser)
                let app = try device.launch(.byEmail, .create(ServicesDevice.alicePasscode))
                try await app.manager.open()
                try app.presenter.verifyFinished()
                #expect(app.presenter.presentedKinds == [.welcome, .passcodeCreate], "no password screen of the app's")
                let store = try #require(await app.manager.store)
                #expect(try ServiceAccount(reading: store).user?.id == "alice")
                #expect(visits.value == 1)
                try await app.manager.close()

                // The relaunch asks nothing of the provider.
                let again = try device.launch(.unlock(ServicesDevice.alicePasscode))
                try await again.manager.open()
                try again.presenter.verifyFinished()
                #expect(visits.value == 1)

                // The access token ends (revoked as an expiry would end it): the refresh goes
                // through the provider, silently.
                let context = try #require(await again.manager.flowContext)
                let reader = AppDataReader(services: device.services)
                let access = try #require(
                    try OAuthSignInAgainstServerTests.text(await again.manager.store, "gangway.services.token")
                )
                #expect(try await OAuthSignInAgainstServerTests.revoke(access, at: server).status == .ok)
                let renewed = try await reader.read("checks", in: context)
                #expect(renewed.failure == nil && renewed.isFresh)
                #expect(visits.value == 1)

                // The provider ends alice's tokens (she signed out everywhere, or was
                // blocked there): the next refresh is refused, she signs in again through
                // the browser, and the read goes on.
                try await provider.revokeTokens(of: "idp-alice")
                let current = try #require(
                    try OAuthSignInAgainstServerTests.text(await again.manager.store, "gangway.services.token")
                )
                #expect(try await OAuthSignInAgainstServerTests.revoke(current, at: server).status == .ok)
                let afterRevocation = try await reader.read("checks", in: context)
                #expect(afterRevocation.failure == nil && afterRevocation.isFresh)
                #expect(visits.value == 2)
                try again.presenter.verifyFinished()
                #expect(!device.logsHoldASecret)
            }
        }
    }

    @Test(
        "two people of the provider share a device: one user each; the same person again is offered their own user"
    )
    func sharedDevice() async throws {
        try await TestIdentityProvider.using { provider in
            try await TestServer.run(seed: .checks) { server in
                try await Self.federate(server, to: provider)
                let person = Person("idp-alice")
                let browser = LoopbackBrowser(open: Self.person(server, provider, person))
                let device = try ServicesDevice(server: server, shared: true, browser: browser)
                let first = try device.launch(.byEmail, .create(ServicesDevice.alicePasscode))
                let alice = try await first.manager.open()

                person.subject = "idp-bob"
                first.presenter.append(.welcome(.signIn), .create(ServicesDevice.bobPasscode))
                let bob = try await first.manager.addUser()
                try first.presenter.verifyFinished()
                #expect(bob.onboardingID != alice.onboardingID)
                #expect(
                    try first.registry.users().map(\.displayName).sorted() == ["Alice", "Bob"]
                )
                try await first.manager.close()

                // Alice at the provider again, to add herself a second time: her own user.
                person.subject = "idp-alice"
                let again = try device.launch(
                    .userPicker(.addUser),
                    .welcome(.signIn),
                    .existingUser(.unlockExisting),
                    .unlock(ServicesDevice.alicePasscode)
                )
                #expect(try await again.manager.open().onboardingID == alice.onboardingID)
                try again.presenter.verifyFinished()
                #expect(try again.registry.users().count == 2)
            }
        }
    }

    @Test("a passcode reset needs the same person at the provider: another one is sent back, the data kept")
    func passcodeReset() async throws {
        try await TestIdentityProvider.using { provider in
            try await TestServer.run(seed: .checks) { server in
                try await Self.federate(server, to: provider)
                let person = Person("idp-alice")
                let device = try ServicesDevice(
                    server: server,
                    browser: LoopbackBrowser(open: Self.person(server, provider, person))
                )
                let first = try device.launch(.byEmail, .create(ServicesDevice.alicePasscode))
                let id = try await first.manager.open().onboardingID
                try #require(await first.manager.store).put(Data("4 checked".utf8), forKey: "check.A320.tyres")
                try await first.manager.close()

                person.subject = "idp-bob"
                let app = try device.launch(
                    .passcodeInput(.reset),
                    .existingUser(.back),
                    .unlock(ServicesDevice.alicePasscode)
                )
                #expect(try await app.manager.open().onboardingID == id)
                try app.presenter.verifyFinished()
                let screen = try #require(app.presenter.presented(ExistingUserScreen.self).first)
                #expect(screen.situation == .otherPerson(resetting: "Alice", signedIn: nil))
                let store = try #require(await app.manager.store)
                #expect(try store.data(forKey: "check.A320.tyres") == Data("4 checked".utf8))
            }
        }
    }

    @Test(
        "in headless Chromium: the app's page, the provider's page, back through the server to the app's listener",
        .enabled(if: HeadlessBrowser.isInstalled, "needs Debian's chromium and chromium-driver"),
        .tags(.browser),
        .skipsTags
    )
    func inChromium() async throws {
        try await TestIdentityProvider.using { provider in
            try await TestServer.run(seed: .checks) { server in
                try await Self.federate(server, to: provider)
                let open: @Sendable (URL) async throws -> Void = { page in
                    try await HeadlessBrowser.using { browser in
                        try await browser.open(page.absoluteString)
                        // The provider's own page: the person says who they are there.
                        let subject = try await browser.element("#subject-input")
                        try await browser.type("idp-alice\u{E007}", into: subject)
                        // Back at the server: the consent page, answered with the keyboard.
                        try await browser.source(once: "use your account?")
                        try await browser.type("\u{E007}", into: try await browser.focused())
                        try await browser.source(once: "Close this window")
                    }
                }
                let device = try ServicesDevice(server: server, browser: LoopbackBrowser(open: open))
                let app = try device.launch(.byEmail, .create(ServicesDevice.alicePasscode))
                try await app.manager.open()
                try app.presenter.verifyFinished()
                #expect(try ServiceAccount(reading: try #require(await app.manager.store)).user?.id == "alice")
            }
        }
    }
}

import AsyncHTTPClient
import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayServer
import GangwayServerTesting
import GangwayServices
import GangwayStore
import GangwayTesting
import HTTPTypes
import NIOCore
import Synchronization
import Testing

@Suite("Stories: with a browser, an oauth2 app signs people in with the authorization code grant")
struct AuthorizationCodeSignInTests {
    static func oauth2(_ server: RunningTestServer) async throws {
        try await server.admin(
            .put,
            "/admin/apps/checks/authentication",
            json: #"{"type": "oauth2", "redirectURIs": ["http://127.0.0.1/callback"]}"#
        )
    }

    /// A person at the server's sign-in page, by HTTP as a browser does it: the page opened,
    /// its form sent with their password, then the redirect followed to the app's
    /// loopback address.
    static func person(
        _ server: RunningTestServer,
        _ user: String = "alice",
        approve: Bool = true
    )
        -> @Sendable (URL) async throws -> Void
    {
        { page in
            let password = ServerSeed.checks.users.first { $0.username == user }?.password.value ?? ""
            let query = URLComponents(url: page, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
            let browser = PageBrowser(server)
            let shown = try await browser.get(page.path + "?" + query)
            guard shown.status == .ok else { throw TestServerError("the sign-in page answered \(shown.status)") }
            let reply = try await browser.submit(
                shown,
                to: page.path,
                [("username", user), ("password", password), ("decision", approve ? "approve" : "deny")]
            )
            guard reply.status == .seeOther, let location = reply.headers[.location] else {
                throw TestServerError("the sign-in page answered \(reply.status)")
            }
            try await follow(location)
        }
    }

    /// The browser going to `location`, the app's loopback redirect URI.
    static func follow(_ location: String) async throws {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: location), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 16)
    }

    @Test(
        "the sign-in page in the browser, the redirect caught on a loopback port; no screen of the app's asks a password"
    )
    func signsIn() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let device = try ServicesDevice(server: server, browser: LoopbackBrowser(open: Self.person(server)))
            let app = try device.launch(.byEmail, .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try app.presenter.verifyFinished()
            #expect(app.presenter.presentedKinds == [.welcome, .passcodeCreate])
            let store = try #require(await app.manager.store)
            #expect(try ServiceAccount(reading: store).user?.id == "alice")
            #expect(try store.data(forKey: "gangway.services.refreshToken") != nil)
            #expect(!device.logsHoldASecret)
        }
    }

    /// A browser that first comes back with an answer that is not the sign-in's, then
    /// behaves.
    struct ForgingBrowser: AuthorizationBrowser {
        let honest: LoopbackBrowser
        let forged: @Sendable (URL) -> URL
        let tries = TryCounter()

        func authorize(_ page: @escaping @Sendable (String) -> URL) async throws -> AuthorizationCallback {
            guard tries.next() == 0 else { return try await honest.authorize(page) }
            let redirect = "http://127.0.0.1:1/callback"
            return AuthorizationCallback(redirectURI: redirect, url: forged(page(redirect)))
        }
    }

    final class TryCounter: Sendable {
        private let count = Mutex(0)
        func next() -> Int {
            count.withLock { count in
                defer { count += 1 }
                return count
            }
        }
    }

    @Test(
        "an answer with another state, or from another issuer, or a denial: refused, said, and signed in on the next try",
        arguments: ["state", "iss", "denied"]
    )
    func refusedAnswers(_ fault: String) async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let forged: @Sendable (URL) -> URL = { page in
                let items = URLComponents(url: page, resolvingAgainstBaseURL: false)?.queryItems ?? []
                let state = items.first { $0.name == "state" }?.value ?? ""
                let issuer = "\(server.url.absoluteString)/apps/checks"
                let query: String
                switch fault {
                case "state": query = "code=gw_stolen&state=other&iss=\(issuer)"
                case "iss": query = "code=gw_stolen&state=\(state)&iss=https://evil.example"
                default: query = "error=access_denied&state=\(state)&iss=\(issuer)"
                }
                return URL(string: "http://127.0.0.1:1/callback?\(query)")!
            }
            let browser = ForgingBrowser(honest: LoopbackBrowser(open: Self.person(server)), forged: forged)
            let device = try ServicesDevice(server: server, browser: browser)
            let app = try device.launch(.byEmail, .error(.retry), .create(ServicesDevice.alicePasscode))
            try await app.manager.open()
            try app.presenter.verifyFinished()
            let error = try #require(app.presenter.presented(ErrorScreen.self).first)
            #expect(
                error.message
                    == (fault == "denied"
                        ? "The sign-in was denied at the verification page."
                        : "The answer from the sign-in page was not for this sign-in.")
            )
        }
    }

    @Test(
        "in headless Chromium: the person signs in with the keyboard; the app's loopback listener gets the code",
        .enabled(if: HeadlessBrowser.isInstalled, "needs Debian's chromium and chromium-driver"),
        .tags(.browser),
        .skipsTags
    )
    func inChromium() async throws {
        try await TestServer.run(seed: .checks) { server in
            try await Self.oauth2(server)
            let open: @Sendable (URL) async throws -> Void = { page in
                try await HeadlessBrowser.using { browser in
                    try await browser.open(page.absoluteString)
                    try await browser.type("alice\u{E004}alice-password\u{E007}", into: try await browser.focused())
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

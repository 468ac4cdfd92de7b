import Foundation
import GangwayProtocol
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

/// The device verification page in a real browser: Debian's headless `chromium`, driven
/// by `chromedriver`, as a person on a phone with a keyboard would use it.
@Suite(
    "The device verification page in headless Chromium: keyboard alone, a phone's width",
    .servingTurn,
    .enabled(if: HeadlessBrowser.isInstalled, "needs Debian's chromium and chromium-driver"),
    .tags(.browser),
    .skipsTags
)
struct DeviceVerificationPageBrowserTests {
    @Test("approved with the keyboard alone from the link the device shows; the device gets its tokens")
    func approveWithTheKeyboard() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            try await OAuthDeviceGrantTests.oauth2(api)
            let started = try await OAuthDeviceGrantTests.form(
                api,
                "/apps/checks/oauth/device_authorization",
                [("client_id", "checks")]
            )
            let authorization = try started.decode(Components.Schemas.DeviceAuthorization.self)
            let codes = OAuthDeviceGrantTests.Codes(
                deviceCode: authorization.deviceCode,
                userCode: authorization.userCode
            )
            let browser = try await HeadlessBrowser.start()
            do {
                try await browser.open(authorization.verificationUriComplete)
                // The page names the device and shows the code, and the focus is on the user name.
                let shown = try await browser.source()
                #expect(shown.contains("<strong>\(codes.userCode)</strong>"), "\(shown)")
                #expect(shown.contains("A device that gave no name asked to sign in to"), "\(shown)")
                let name = try await browser.focused()
                #expect(try await browser.property("id", of: name) == "username")
                // Nothing overflows a phone's width.
                let fits = try await browser.evaluate(
                    "return document.documentElement.scrollWidth <= window.innerWidth"
                )
                #expect(fits as? Bool == true)

                try await browser.type("alice\u{E004}", into: name)
                let password = try await browser.focused()
                #expect(try await browser.property("id", of: password) == "password")
                try await browser.type("alice-password\u{E007}", into: password)
                let done = try await browser.source(once: "Your device is signed in")
                #expect(done.contains("Your device is signed in as Alice"), "\(done)")

                let issued = try await OAuthDeviceGrantTests.poll(api, codes)
                #expect(issued.status == .ok)
                #expect(
                    try await OAuthDeviceGrantTests.settingsStatus(
                        api,
                        try OAuthDeviceGrantTests.tokens(from: issued).access
                    ) == .ok
                )
            } catch {
                await browser.stop()
                throw error
            }
            await browser.stop()
        }
    }

    @Test("a mistyped code is refused on the page and approves nothing; Deny denies")
    func wrongCodeThenDeny() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            try await OAuthDeviceGrantTests.oauth2(api)
            let codes = try await OAuthDeviceGrantTests.start(api)
            let browser = try await HeadlessBrowser.start()
            do {
                try await browser.open("\(api.running.url.absoluteString)/apps/checks/oauth/device")
                let code = try await browser.focused()
                #expect(try await browser.property("id", of: code) == "user_code")
                try await browser.type("BBBB-BBBB\u{E007}", into: code)
                let refused = try await browser.source(once: "This code is not valid")
                #expect(refused.contains("role=\"alert\""), "\(refused)")
                #expect(
                    try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, codes))
                        == "authorization_pending"
                )

                try await browser.open(
                    "\(api.running.url.absoluteString)/apps/checks/oauth/device?user_code=\(codes.userCode)"
                )
                try await browser.type("alice", into: try await browser.element("#username"))
                try await browser.type("alice-password", into: try await browser.element("#password"))
                try await browser.click(try await browser.element("button[value=deny]"))
                let denied = try await browser.source(once: "The request was denied")
                #expect(denied.contains("The request was denied"), "\(denied)")
            } catch {
                await browser.stop()
                throw error
            }
            await browser.stop()
        }
    }

    @Test(
        "the code grant's sign-in page with the keyboard alone: the browser lands on the app's loopback address with the code"
    )
    func authorizationCodeWithTheKeyboard() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            try await OAuthAuthorizationCodeTests.setUp(api)
            let browser = try await HeadlessBrowser.start()
            do {
                // A port nothing listens on: the browser still shows where it was sent.
                let redirect = "http://127.0.0.1:9/callback"
                let query = OAuthAuthorizationCodeTests.query(OAuthAuthorizationCodeTests.request(redirect: redirect))
                try await browser.open("\(api.running.url.absoluteString)/apps/checks/oauth/authorize?\(query)")
                let name = try await browser.focused()
                #expect(try await browser.property("id", of: name) == "username")
                let fits = try await browser.evaluate(
                    "return document.documentElement.scrollWidth <= window.innerWidth"
                )
                #expect(fits as? Bool == true, "no sideways scrolling at a phone's width")
                try await browser.type("alice\u{E004}alice-password\u{E007}", into: name)
                var landed = ""
                for _ in 0..<100 {
                    landed = try await browser.currentURL()
                    if landed.hasPrefix(redirect) { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                let components = try #require(URLComponents(string: landed))
                #expect(landed.hasPrefix(redirect + "?"), "\(landed)")
                let code = try #require(components.queryItems?.first { $0.name == "code" }?.value)
                #expect(components.queryItems?.first { $0.name == "state" }?.value == "af0ifjsldkj")
                let tokens = try await OAuthAuthorizationCodeTests.redeem(api, code: code, redirect: redirect)
                try api.expectStatus(tokens, .ok)
            } catch {
                await browser.stop()
                throw error
            }
            await browser.stop()
        }
    }

    @Test(
        "federated: another site's form approving a device code is refused; the real approval asks consent first",
        .enabled(if: TestIdentityProvider.isInstalled, "needs oidc-provider-mock in .build-oidc/venv (see .ci/run)")
    )
    func crossSiteApprovalAndConsent() async throws {
        try await FederatedSignInTests.withProvider { _, api, provider in
            try await FederatedSignInTests.setUp(api, provider)
            let started = try await OAuthDeviceGrantTests.form(
                api,
                "/apps/checks/oauth/device_authorization",
                [("client_id", "checks"), ("device_id", "attackers-tablet")]
            )
            let authorization = try started.decode(Components.Schemas.DeviceAuthorization.self)
            let codes = OAuthDeviceGrantTests.Codes(
                deviceCode: authorization.deviceCode,
                userCode: authorization.userCode
            )
            let server = api.running.url.absoluteString
            // The attacker's page: a form that approves the attacker's code in the
            // visitor's browser, which knows this server (it opened its page before).
            let attack = """
                <!DOCTYPE html><html><body>
                <form method="post" action="\(server)/apps/checks/oauth/device">
                <input type="hidden" name="user_code" value="\(codes.userCode)">
                <input type="hidden" name="decision" value="approve">
                <button id="go" type="submit">Win a prize</button>
                </form></body></html>
                """
            try await HeadlessBrowser.using { browser in
                try await browser.open("\(server)/apps/checks/oauth/device")
                try await CrossSitePage.serving(attack) { page in
                    try await browser.open(page.absoluteString)
                    try await browser.click(try await browser.element("#go"))
                    let refused = try await browser.source(once: "nothing was done")
                    #expect(refused.contains("sent from another site"), "\(refused)")
                }
                #expect(try await browser.currentURL().hasPrefix(server), "never sent on to the provider")
                #expect(
                    try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, codes))
                        == "authorization_pending"
                )

                // The person's own approval: the page names the device, the provider signs
                // them in, and the server asks before the device gets anything.
                try await browser.open(authorization.verificationUriComplete)
                let shown = try await browser.source(once: "attackers-tablet")
                #expect(shown.contains("The device <strong>attackers-tablet</strong> asked to sign in"), "\(shown)")
                try await browser.type("\u{E007}", into: try await browser.focused())
                try await browser.type("idp-grace\u{E007}", into: try await browser.element("#subject-input"))
                let consent = try await browser.source(once: "Let that device use your account?")
                #expect(consent.contains("attackers-tablet"))
                let waiting = try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, codes))
                #expect(
                    waiting == "authorization_pending" || waiting == "slow_down",
                    "no token before the person allows it"
                )
                let allow = try await browser.focused()
                #expect(try await browser.property("value", of: allow) == "approve")
                try await browser.type("\u{E007}", into: allow)
                let done = try await browser.source(once: "Your device is signed in")
                #expect(done.contains("Your device is signed in as idp-grace"))
            }
            let issued = try await OAuthDeviceGrantTests.poll(api, codes)
            #expect(issued.status == .ok)
        }
    }
}

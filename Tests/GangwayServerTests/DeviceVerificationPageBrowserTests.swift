import Foundation
import GangwayProtocol
import GangwayServerTesting
import HTTPTypes
import Testing

/// The device verification page in a real browser: Debian's headless `chromium`, driven
/// by `chromedriver`, as a person on a phone with a keyboard would use it.
@Suite(
    "The device verification page in headless Chromium: keyboard alone, a phone's width",
    .servingTurn,
    .enabled(if: HeadlessBrowser.isInstalled, "needs Debian's chromium and chromium-driver")
)
struct DeviceVerificationPageBrowserTests {
    @Test("approved with the keyboard alone from the link the device shows; the device gets its tokens")
    func approveWithTheKeyboard() async throws {
        try await ServerFixture().runSeeded { api in
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
                // The code is filled in and the focus is on the user name.
                #expect(
                    try await browser.property("value", of: try await browser.element("#user_code")) == codes.userCode
                )
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
        try await ServerFixture().runSeeded { api in
            try await OAuthDeviceGrantTests.oauth2(api)
            let codes = try await OAuthDeviceGrantTests.start(api)
            let browser = try await HeadlessBrowser.start()
            do {
                try await browser.open("\(api.running.url.absoluteString)/apps/checks/oauth/device")
                let code = try await browser.focused()
                #expect(try await browser.property("id", of: code) == "user_code")
                try await browser.type("BBBB-BBBB\u{E004}alice\u{E004}alice-password\u{E007}", into: code)
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
        try await ServerFixture().runSeeded { api in
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
}

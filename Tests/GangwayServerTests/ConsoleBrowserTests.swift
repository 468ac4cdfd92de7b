import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import Testing

/// The operator's console in a real browser: Debian's headless `chromium`, driven by
/// `chromedriver`, with the keyboard alone.
@Suite(
    "The console in headless Chromium: an operator enrols a second factor, signs in and out; forms from elsewhere do nothing",
    // One browser at a time: each is a heavy process on a machine of two cores, where the
    // suite's timing-sensitive neighbours (bcrypt, throttling) also run. Its turns come
    // first, so that its tests, one after another, run beside the others: they came last
    // in the queue and ended the run alone, two minutes after every other test.
    .servingTurnFirst,
    .serialized,
    .enabled(if: HeadlessBrowser.isInstalled, "needs Debian's chromium and chromium-driver"),
    .tags(.browser),
    .skipsTags
)
struct ConsoleBrowserTests {
    static let password = "a long operator passphrase"

    /// The code an authenticator app holding the key shown on the page would show at `date`.
    static func code(secret shown: String, at date: Date) throws -> String {
        let secret = try #require(Base32.decode(shown))
        return TOTP(secret: secret).code(atStep: TOTP.step(at: date))
    }

    @Test("enrol from the link, land on the overview, sign out; a code is taken once; the link works once")
    func enrolAndSignIn() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            let enrolment = try await OperatorsTests.add(api, "ops.alice", role: "admin")
            let server = api.running.url.absoluteString
            try await HeadlessBrowser.using { browser in
                // Not signed in: the console sends the browser to sign in.
                try await browser.open("\(server)/console")
                #expect(try await browser.currentURL() == "\(server)/console/sign-in")

                try await browser.open(enrolment.enrolmentURL)
                let page = try await browser.source(once: "Set up ops.alice")
                #expect(page.contains("<img class=\"qr\""), "the key as a QR code, drawn by the server")
                let secret = try await browser.evaluate("return document.getElementById('secret').textContent")
                let shown = try #require(secret as? String)
                let fits = try await browser.evaluate(
                    "return document.documentElement.scrollWidth <= window.innerWidth"
                )
                #expect(fits as? Bool == true, "no sideways scrolling at a phone's width")

                // A mistake first: the passwords differ; nothing is kept, the link still works.
                try await browser.type(Self.password, into: try await browser.element("#password"))
                try await browser.type("another passphrase", into: try await browser.element("#confirmation"))
                let first = try Self.code(secret: shown, at: fixture.clock.now())
                try await browser.type(first + "\u{E007}", into: try await browser.element("#code"))
                let differ = try await browser.source(once: "The two passwords differ")
                #expect(differ.contains("role=\"alert\""))
                #expect(try await fixture.server.storage.operatorRecord(named: "ops.alice")?.isEnrolled == false)

                try await browser.type(Self.password, into: try await browser.element("#password"))
                try await browser.type(Self.password, into: try await browser.element("#confirmation"))
                try await browser.type(first + "\u{E007}", into: try await browser.element("#code"))
                let overview = try await browser.source(once: "ops.alice (admin)")
                #expect(overview.contains("<h1>Overview</h1>"))
                #expect(overview.contains(#"Users</span> <span class="value">2</span>"#), "alice and bob")
                #expect(overview.contains(#"Operators</span> <span class="value">1</span>"#))
                #expect(try await browser.currentURL() == "\(server)/console")

                try await browser.click(try await browser.element(".sign-out button"))
                _ = try await browser.source(once: "Operator name")
                try await browser.open("\(server)/console")
                #expect(try await browser.currentURL() == "\(server)/console/sign-in", "signed out")

                // The code used to enrol opens nothing again.
                try await Self.signIn(browser, server: server, code: first)
                let replayed = try await browser.source(once: "The name, password or code is wrong")
                #expect(replayed.contains("value=\"ops.alice\""), "the name is kept")

                fixture.clock.advance(by: .seconds(31))
                try await Self.signIn(
                    browser,
                    server: server,
                    code: try Self.code(secret: shown, at: fixture.clock.now())
                )
                _ = try await browser.source(once: "ops.alice (admin)")

                try await browser.open(enrolment.enrolmentURL)
                let ended = try await browser.source(once: "This link has ended")
                #expect(ended.contains("gangway admin operators enrol"))
            }
            let token = try #require(URLComponents(string: enrolment.enrolmentURL)?.queryItems?.first?.value)
            #expect(!fixture.logs.text.contains(token), "the link's token is in no log line")
            #expect(!fixture.logs.text.contains(Self.password), "nor the password")
            let events = try await OperatorsTests.audit(api)
            // The replayed code is a failed sign-in at the operator's name.
            #expect(events.prefix(5).map(\.action) == ["signIn", "signInFailed", "signOut", "enrol", "addOperator"])
            #expect(events.prefix(4).allSatisfy { $0.actor == "ops.alice" && $0.via == .console })
        }
    }

    @Test("another site's forms sign no one in or out; the console's pages allow no script and no framing")
    func crossSite() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            let enrolment = try await OperatorsTests.add(api, "ops.bob", role: "viewer")
            let server = api.running.url.absoluteString
            let attack = """
                <!DOCTYPE html><html><body>
                <form method="post" action="\(server)/console/sign-out">
                <button id="go" type="submit">Win a prize</button>
                </form></body></html>
                """
            try await HeadlessBrowser.using { browser in
                try await browser.open(enrolment.enrolmentURL)
                let shown = try #require(
                    try await browser.evaluate("return document.getElementById('secret').textContent") as? String
                )
                try await browser.type(Self.password, into: try await browser.element("#password"))
                try await browser.type(Self.password, into: try await browser.element("#confirmation"))
                let code = try Self.code(secret: shown, at: fixture.clock.now())
                try await browser.type(code + "\u{E007}", into: try await browser.element("#code"))
                _ = try await browser.source(once: "ops.bob (viewer)")

                try await CrossSitePage.serving(attack) { page in
                    try await browser.open(page.absoluteString)
                    try await browser.click(try await browser.element("#go"))
                    // The session cookie is SameSite=Strict: the post arrives without it,
                    // and the form without its token is refused.
                    let refused = try await browser.source(once: "nothing was done")
                    #expect(refused.contains("not sent from this console"), "\(refused)")
                }
                try await browser.open("\(server)/console")
                _ = try await browser.source(once: "ops.bob (viewer)")
            }
            let overview = try await api.send(.get, "/console/sign-in")
            let policy = try #require(overview.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'none'"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(!policy.contains("script-src"))
            #expect(!overview.text.contains("<script"))
            let refused = try await api.running.sendForm("/console/sign-in", [("name", "ops.bob"), ("password", "x")])
            #expect(refused.status == .forbidden, "no form token")
            #expect(try await OperatorsTests.audit(api).first?.action == "enrol", "nothing else happened")
        }
    }

    /// Enrols the operator of `enrolment` in `browser` as a person would, the code read
    /// from the key the page shows; the browser is then on the overview.
    static func enrol(
        _ browser: HeadlessBrowser,
        _ enrolment: Components.Schemas.OperatorEnrolment,
        at date: Date
    ) async throws {
        try await browser.open(enrolment.enrolmentURL)
        let shown = try #require(
            try await browser.evaluate("return document.getElementById('secret').textContent") as? String
        )
        try await browser.type(password, into: try await browser.element("#password"))
        try await browser.type(password, into: try await browser.element("#confirmation"))
        try await browser.type(try code(secret: shown, at: date) + "\u{E007}", into: try await browser.element("#code"))
        _ = try await browser.source(once: "<h1>Overview</h1>")
    }

    @Test("an operator finds a user by name, blocks and unblocks them; a viewer sees no action and is refused one")
    func users() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            let server = api.running.url.absoluteString
            let carol = try await OperatorsTests.add(api, "ops.carol", role: "operator")
            let dan = try await OperatorsTests.add(api, "ops.dan", role: "viewer")
            try await HeadlessBrowser.using { browser in
                try await Self.enrol(browser, carol, at: fixture.clock.now())
                try await browser.click(try await browser.element("nav a[href='/console/users']"))
                let all = try await browser.source(once: "<h1>Users</h1>")
                #expect(all.contains(">alice</a></td>") && all.contains(">bob</a></td>"))
                try await browser.type("AL\u{E007}", into: try await browser.element("#q"))
                let found = try await browser.source(once: "starts with “AL”")
                #expect(found.contains(">alice</a></td>"))
                #expect(!found.contains(">bob</a></td>"))
                try await browser.click(try await browser.element("button[value=block]"))
                _ = try await browser.source(once: "Block alice?")
                try await browser.click(try await browser.element("button.danger"))
                let blocked = try await browser.source(once: #"<td data-label="Status">blocked</td>"#)
                #expect(blocked.contains("Blocked alice: their sessions ended, and they cannot sign in."))
                #expect(blocked.contains("Unblock<span class=\"hidden\"> alice</span>"))
                #expect(try await api.signInReply("alice").status != .created, "alice is blocked")
                try await browser.click(try await browser.element("button[value=unblock]"))
                _ = try await browser.source(once: #"<td data-label="Status">active</td>"#)
                #expect(try await api.signInReply("alice").status == .created)
                try await browser.click(try await browser.element("button[value=revoke]"))
                _ = try await browser.source(once: "End alice&#39;s sessions?")
                try await browser.click(try await browser.element("button.danger"))
                // The list shows the same before and after the revocation, so its audit
                // says when it is done; the browser stays open until then, as a closed
                // one may not have sent the form (a loaded CI run closed it first).
                for _ in 0..<600 where try await OperatorsTests.audit(api).first?.action != "revokeUserSessions" {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            let events = try await OperatorsTests.audit(api)
            #expect(
                events.prefix(3).map(\.action) == ["revokeUserSessions", "updateUser", "updateUser"]
            )
            #expect(events.prefix(3).allSatisfy { $0.actor == "ops.carol" && $0.via == .console })
            #expect(events.first?.target == "/admin/users/alice/sessions")

            try await HeadlessBrowser.using { browser in
                fixture.clock.advance(by: .seconds(31))
                try await Self.enrol(browser, dan, at: fixture.clock.now())
                try await browser.open("\(server)/console/users")
                let read = try await browser.source(once: "<h1>Users</h1>")
                #expect(!read.contains("<th scope=\"col\">Actions</th>"))
                #expect(!read.contains("value=\"block\""))
                // A form made by hand with the page's own token: still a viewer's.
                _ = try await browser.evaluate(
                    """
                    const token = document.querySelector('input[name=form_token]').value;
                    const form = document.createElement('form');
                    form.method = 'post'; form.action = '/console/users/alice';
                    form.innerHTML = '<input name="form_token" value="' + token + '"><input name="action" value="block">';
                    document.body.appendChild(form); form.submit();
                    """
                )
                let refused = try await browser.source(once: "A viewer reads only")
                #expect(refused.contains("role=\"alert\""))
            }
            #expect(try await api.signInReply("alice").status == .created, "nothing was done")
            #expect(try await OperatorsTests.audit(api).first?.actor == "ops.dan", "only the viewer's enrolment")
        }
    }

    @Test(
        "an operator locks, unlocks and wipes alice's device; the console shows the wipe carried out once the device heard"
    )
    func devices() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            let alice = try await ChangeUploadTests.author("alice", api: api)
            let enrolment = try await OperatorsTests.add(api, "ops.fay", role: "operator")
            let server = api.running.url.absoluteString
            try await HeadlessBrowser.using { browser in
                try await Self.enrol(browser, enrolment, at: fixture.clock.now())
                try await browser.click(try await browser.element("nav a[href='/console/devices']"))
                let listed = try await browser.source(once: "<h1>Devices</h1>")
                #expect(listed.contains(#"<td data-label="User">alice</td>"#))
                #expect(listed.contains("Stand 12 tablet"))
                #expect(listed.contains(#"<td data-label="Status">active</td>"#))
                try await browser.click(try await browser.element("button[value=lock]"))
                let locked = try await browser.source(once: #"<td data-label="Status">locked</td>"#)
                #expect(
                    locked.contains("role=\"status\">Registration \(alice.registrationID). Locked:"),
                    "a result line"
                )
                #expect(
                    try await api.send(.get, "/apps/checks/settings", token: alice.token).code == "TRAFFIC_REG_LOCKED"
                )
                try await browser.click(try await browser.element("button[value=unlock]"))
                _ = try await browser.source(once: #"<td data-label="Status">active</td>"#)
                // The lock ended the session there: the device signs in anew.
                #expect(try await api.send(.get, "/apps/checks/settings", token: alice.token).status == .unauthorized)
                let again = try await api.signIn("alice", device: "device-1")
                fixture.clock.advance(by: .seconds(1))
                // A wipe asks first, says what it does, and Cancel does nothing.
                try await browser.click(try await browser.element("button[value=wipe]"))
                let asked = try await browser.source(once: "Wipe this device?")
                #expect(asked.contains("cannot be undone") && asked.contains("class=\"danger\""))
                if Accessibility.isInstalled { try await Self.check(browser, "devices-confirm-wipe") }
                try await browser.click(try await browser.element("a.cancel"))
                _ = try await browser.source(once: #"<td data-label="Status">active</td>"#)
                #expect(try await api.send(.get, "/apps/checks/settings", token: again).status == .ok)
                try await browser.click(try await browser.element("button[value=wipe]"))
                _ = try await browser.source(once: "Wipe this device?")
                try await browser.click(try await browser.element("button.danger"))
                let waiting = try await browser.source(once: "wiped: waits for the device")
                #expect(waiting.contains("Wiped: the app's data on the device is erased at its next contact."))
                #expect(!waiting.contains("value=\"lock\""), "nothing more to do to a wiped device")
                fixture.clock.advance(by: .seconds(1))
                let told = try await api.send(.get, "/apps/checks/settings", token: again)
                #expect(told.code == "TRAFFIC_REG_WIPED")
                try await browser.open("\(server)/console/devices?app=checks")
                _ = try await browser.source(once: "wiped: carried out")
            }
            let events = try await OperatorsTests.audit(api)
            #expect(events.prefix(3).map(\.action) == ["updateDevice", "updateDevice", "updateDevice"])
            // The console runs the API's handlers: the audit says what each did, as for the API.
            #expect(
                events.prefix(3).map(\.detail)
                    == ["status: active → wiped", "status: locked → active", "status: active → locked"]
            )
            #expect(events.first?.target == "/admin/apps/checks/devices/\(alice.registrationID)")
            #expect(events.first?.actor == "ops.fay")
        }
    }

    /// The cells of the page's tables whose `::before` does not name their column (as
    /// `Name: `), as `column → shown`.
    static let unlabelledCells = """
        const missing = [];
        for (const table of document.querySelectorAll('main table')) {
          const heads = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
          if (heads.length === 0) continue;
          for (const row of table.querySelectorAll('tbody tr')) {
            [...row.children].forEach((cell, index) => {
              if (cell.tagName !== 'TD') return;
              const shown = getComputedStyle(cell, '::before').content;
              if (shown !== JSON.stringify(heads[index] + ': ')) missing.push(heads[index] + ' → ' + shown);
            });
          }
        }
        return missing;
        """

    /// The element that reaches furthest right, for a message.
    static let widestElement = """
        let widest = null;
        for (const element of document.querySelectorAll('main *')) {
          const right = element.getBoundingClientRect().right;
          if (!widest || right > widest.right) widest = {right, tag: element.outerHTML.slice(0, 120)};
        }
        return widest ? widest.right + ' ' + widest.tag : '';
        """

    /// Where the screenshots of the console's pages go, for a person to look at.
    static let screenshots = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/screenshots/console")

    /// axe-core's findings on the page shown (none expected), and its screenshots at a
    /// phone's width and a desktop's, saved as `NAME-phone.png` and `NAME-desktop.png`.
    static func check(_ browser: HeadlessBrowser, _ name: String) async throws {
        let violations = try await browser.accessibilityViolations()
        #expect(violations.isEmpty, "\(name): \(violations.joined(separator: "; "))")
        // At a phone's width, a table's rows stand as blocks: each cell says its column.
        let unlabelled = try await browser.evaluate(Self.unlabelledCells) as? [String] ?? ["no answer"]
        #expect(unlabelled.isEmpty, "\(name): cells without their column's name: \(unlabelled.prefix(5))")
        for width in [320, 1280] {
            try await browser.resize(width: width, height: 900)
            let fits = try await browser.evaluate("return document.documentElement.scrollWidth <= window.innerWidth")
            let widest = try await browser.evaluate(Self.widestElement) as? String ?? ""
            #expect(fits as? Bool == true, "\(name): sideways scrolling at \(width) px, widest: \(widest)")
        }
        try await browser.resize(width: 390, height: 844)
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        // axe scrolls to what it checks: the screenshots show the top of the page.
        _ = try await browser.evaluate("window.scrollTo(0, 0)")
        try await browser.screenshot().write(to: screenshots.appendingPathComponent("\(name)-phone.png"))
        try await browser.resize(width: 1280, height: 900)
        _ = try await browser.evaluate("window.scrollTo(0, 0)")
        try await browser.screenshot().write(to: screenshots.appendingPathComponent("\(name)-desktop.png"))
        #expect(try await browser.accessibilityViolations().isEmpty, "\(name) at a desktop's width")
        try await browser.resize(width: 390, height: 844)
    }

    @Test(
        "axe-core finds nothing wrong on any page of the console, at a phone's width or a desktop's; each page's screenshot is kept",
        .enabled(if: Accessibility.isInstalled, "needs pytest-playwright-axe in .build-oidc/venv (see .ci/run)")
    )
    func accessibility() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            _ = try await ChangeUploadTests.author("alice", api: api)
            _ = try await api.admin(
                .put,
                "/admin/apps/checks/destinations/stock",
                json:
                    #"{"url": "https://stock.example.com", "authentication": "credential", "credentialHeader": "X-API-Key", "credential": "k"}"#
            )
            let enrolment = try await OperatorsTests.add(api, "ops.gus", role: "admin")
            let server = api.running.url.absoluteString
            try await HeadlessBrowser.using { browser in
                try await browser.open("\(server)/console/sign-in")
                try await Self.check(browser, "sign-in")
                try await browser.type(
                    "nobody\u{E004}wrong-password\u{E004}123456\u{E007}",
                    into: try await browser.element("#name")
                )
                _ = try await browser.source(once: "The name, password or code is wrong")
                try await Self.check(browser, "sign-in-refused")

                try await browser.open(enrolment.enrolmentURL)
                _ = try await browser.source(once: "Set up ops.gus")
                try await Self.check(browser, "enrol")
                try await browser.type("short\u{E007}", into: try await browser.element("#password"))
                _ = try await browser.source(once: "Set up ops.gus")
                try await Self.enrol(browser, enrolment, at: fixture.clock.now())
                try await Self.check(browser, "overview")
                try await browser.open("\(server)/console?period=day")
                _ = try await browser.source(once: "The last 24 hours")
                try await Self.check(browser, "overview-day")
                // Each page as it opens: its path, what shows it is there, its screenshots' name.
                let pages = [
                    ("users", "<h1>Users</h1>", "users"), ("users/alice", "User alice", "user"),
                    ("devices", "<h1>Devices</h1>", "devices"), ("audit", "<h1>Audit</h1>", "audit"),
                    ("apps", "<h1>Apps</h1>", "apps"), ("data", "<h1>Data</h1>", "data"),
                    ("logs", "<h1>Logs</h1>", "logs"), ("apps/checks/sign-in", "How people sign in", "app-sign-in"),
                    ("apps/checks/destinations", "a fixed credential in X-API-Key", "app-destinations"),
                    // Last: the app's settings form is used next.
                    ("apps/checks", "Require a passcode", "app-settings"),
                ]
                for (path, shown, name) in pages {
                    try await browser.open("\(server)/console/\(path)")
                    _ = try await browser.source(once: shown)
                    try await Self.check(browser, name)
                }
                try await browser.click(try await browser.element("#allowUploadPendingChangesFromPreviousUser"))
                try await browser.type("-beta\u{E007}", into: try await browser.element("#minimumVersion"))
                let refused = try await browser.source(once: "role=\"alert\"")
                #expect(refused.contains("value=\"-beta\""), "what was typed is kept")
                try await Self.check(browser, "app-settings-refused")
                try await browser.open("\(server)/console/apps/checks/activation")
                try await browser.click(try await browser.element("main button"))
                _ = try await browser.source(once: "gangway://activate")
                try await Self.check(browser, "activation")
                try await browser.open("\(server)/console/operators")
                try await browser.type("ops.hal\u{E007}", into: try await browser.element("#name"))
                _ = try await browser.source(once: "Give this link to ops.hal alone")
                try await Self.check(browser, "operators")
                try await browser.open(enrolment.enrolmentURL)
                _ = try await browser.source(once: "This link has ended")
                try await Self.check(browser, "link-ended")
            }
        }
    }

    @Test(
        "the enrolment's QR code, as Chromium shows it, reads back (zbarimg) as the otpauth address of the key shown",
        .enabled(if: ExternalTool("zbarimg").executable != nil, "needs zbar-tools")
    )
    func qrCode() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let enrolment = try await OperatorsTests.add(api, "ops.hal", role: "viewer")
            let (shown, image, png) = try await HeadlessBrowser.using { browser in
                try await browser.open(enrolment.enrolmentURL)
                _ = try await browser.source(once: "Set up ops.hal")
                let source = try await browser.evaluate("return document.querySelector('img.qr').src") as? String
                _ = try await browser.evaluate("document.querySelector('img.qr').scrollIntoView(); return true")
                return (
                    try await browser.evaluate("return document.getElementById('secret').textContent") as? String,
                    source,
                    try await browser.screenshot()
                )
            }
            // An SVG the server drew, no program needed; read as the browser shows it.
            #expect(try #require(image).hasPrefix("data:image/svg+xml;base64,"))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("console-qr-\(UUID()).png")
            try png.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let read = try #require(try await ExternalTool("zbarimg").run(["--raw", "-q", file.path]))
            let address = String(decoding: read.standardOutput, as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let text = try #require(shown)
            let secret = try #require(Base32.decode(text))
            #expect(address == TOTP(secret: secret).provisioningURI(account: "ops.hal", issuer: "Gangway"))
        }
    }

    @Test(
        "an operator linked at the company's provider signs in there, lands on the overview; axe-core finds nothing wrong",
        .enabled(
            if: TestIdentityProvider.isInstalled && Accessibility.isInstalled,
            "needs oidc-provider-mock and pytest-playwright-axe in .build-oidc/venv (see .ci/run)"
        )
    )
    func providerSignIn() async throws {
        try await FederatedSignInTests.withProvider { _, api, provider in
            try await ConsoleProviderSignInTests.setUp(api, provider)
            let server = api.running.url.absoluteString
            let host = try #require(URL(string: provider.issuer)?.host)
            try await HeadlessBrowser.using { browser in
                try await browser.open("\(server)/console/sign-in")
                let page = try await browser.source(once: "Sign in at \(host)")
                #expect(page.contains("Or through your company"))
                try await Self.check(browser, "sign-in-provider")
                try await browser.click(try await browser.element(".providers a"))
                // At the provider's own page, the person says who they are there.
                _ = try await browser.source(once: "subject-input")
                try await browser.type("idp-ida\u{E007}", into: try await browser.element("#subject-input"))
                // The page that says so goes on by itself, and the new session's cookie
                // goes with it.
                let overview = try await browser.source(once: "ops.ida (viewer)")
                #expect(overview.contains("<h1>Overview</h1>"))
                #expect(try await browser.currentURL() == "\(server)/console")

                try await browser.click(try await browser.element(".sign-out button"))
                _ = try await browser.source(once: "Operator name")
                try await browser.click(try await browser.element(".providers a"))
                _ = try await browser.source(once: "subject-input")
                try await browser.type("idp-nobody\u{E007}", into: try await browser.element("#subject-input"))
                let refused = try await browser.source(once: "no operator is linked to you there")
                #expect(refused.contains("role=\"alert\""))
                try await Self.check(browser, "sign-in-provider-refused")
            }
            let events = try await OperatorsTests.audit(api)
            #expect(events.prefix(2).map(\.action) == ["signOut", "signInThroughProvider"])
        }
    }

    @Test("a thousand users page fifty at a time in the browser, each once")
    func usersPaged() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            try await OperatorsTests.addCrew(1_000, digits: 4, fixture)
            let enrolment = try await OperatorsTests.add(api, "ops.erin", role: "viewer")
            try await HeadlessBrowser.using { browser in
                try await Self.enrol(browser, enrolment, at: fixture.clock.now())
                try await browser.open("\(api.running.url.absoluteString)/console/users?q=crew")
                var page = try await browser.source(once: "<h1>Users</h1>")
                var seen = 0
                for _ in 0..<25 {
                    seen += page.components(separatedBy: "\">crew").count - 1
                    guard page.contains("rel=\"next\"") else { break }
                    try await browser.click(try await browser.element("a[rel=next]"))
                    page = try await browser.source(once: "<h1>Users</h1>")
                }
                #expect(seen == 1_000)
                // The last page says how many in all and leads back to the first.
                #expect(page.contains("(1000 in all)"), "the total")
                try await browser.click(try await browser.element("p.links a:not([rel])"))
                page = try await browser.source(once: "<h1>Users</h1>")
                #expect(page.contains(">crew0000</a>") && !page.contains(">First page<"))
            }
        }
    }

    /// Signs ops.alice in from the sign-in page at `server`.
    static func signIn(_ browser: HeadlessBrowser, server: String, code: String) async throws {
        try await browser.open("\(server)/console/sign-in")
        try await browser.type("ops.alice", into: try await browser.element("#name"))
        try await browser.type(password, into: try await browser.element("#password"))
        try await browser.type(code + "\u{E007}", into: try await browser.element("#code"))
    }
}

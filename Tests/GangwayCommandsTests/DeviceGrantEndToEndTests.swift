import Foundation
import GangwayServerStorage
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import Testing

/// The built `gangway` signing in to an `oauth2` app with the device grant: the app shows
/// the code, a person approves it in a real browser (headless Chromium) at the embedded
/// server's verification page, and the app goes on by itself.
@Suite(
    "The terminal app signs in with the device grant, approved in headless Chromium",
    .serialized,
    .enabled(if: HeadlessBrowser.isInstalled, "needs Debian's chromium and chromium-driver"),
    .tags(.endToEnd, .browser),
    .skipsTags
)
struct DeviceGrantEndToEndTests {
    static let passcode = "Fuel-Check-2468"

    /// A person on their phone: opens the address with the code in it, signs in with the
    /// keyboard, and approves.
    static func approve(
        _ url: String,
        username: String = "alice",
        password: String = "preflight-alice"
    ) async throws
        -> String
    {
        try await HeadlessBrowser.using { browser in
            try await browser.open(url)
            let name = try await browser.focused()
            try await browser.type(username + "\u{E004}" + password + "\u{E007}", into: name)
            var source = ""
            for _ in 0..<100 {
                source = try await browser.source()
                if source.contains("signed in as") || source.contains("not") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            return source
        }
    }

    /// Once the code is approved, the app polls, finds the approval and goes on: the
    /// agreements are accepted and the passcode chosen.
    static func agreeAndChoosePasscode(_ terminal: PseudoTerminalSession) {
        for (prompt, answer) in [
            ("Choose [1-2]: ", "accept"), ("Choose [1-2]: ", "allow"),
            ("Choose a passcode", passcode), ("Enter the passcode again", passcode),
        ] {
            #expect(terminal.next(prompt, timeout: .seconds(60)), "no prompt \(prompt)")
            terminal.type(answer)
        }
    }

    /// The address with the code, as the app's screen shows it.
    static func verificationLink(on screen: String) throws -> (url: String, code: String) {
        let url = try #require(screen.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+\/apps\/checks\/oauth\/device/))
        let code = try #require(screen.firstMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/))
        return ("\(url.output)?user_code=\(code.output)", String(code.output))
    }

    @Test(
        "an oauth2 app: the code and its QR code on the screen, approved in the browser; the app goes on; the relaunch asks only the passcode",
        arguments: [false, true]
    )
    func signInWithTheDeviceGrant(plain: Bool) async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-device-grant")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("unused-keys"))
        try await runner.makeEmbeddedServer(in: directory.url)
        let auth = try await runner.run(
            ["admin", "auth", "--type", "oauth2", "--data-dir", directory.url.path, "--bcrypt-cost", "4"],
            lines: []
        )
        #expect(auth.status == 0, "\(auth.standardError)")

        let arguments = ["--data-dir", directory.url.path, "--bcrypt-cost", "4"] + (plain ? ["--plain"] : [])
        let terminal = try PseudoTerminalSession(arguments: arguments, environment: ["GANGWAY_KDF_ROUNDS": "1000"])
        #expect(terminal.next("Choose [1-4]: "))
        terminal.type("email")
        #expect(terminal.next("Work email: "))
        terminal.type("alice@airline.example")
        #expect(terminal.next("Sign In on Another Device"))
        #expect(terminal.next("Waiting for you to approve"))
        let (url, code) = try Self.verificationLink(on: terminal.screen)
        #expect(terminal.screen.contains("Or scan this code"))
        #expect(terminal.screen.contains("█"), "the QR code, drawn in blocks, with no program installed")
        #expect(
            terminal.screen.contains("The code expires in 9:5") || terminal.screen.contains("The code expires in 10:00")
        )
        #expect(!terminal.screen.contains("Password: "), "no password is asked on the device")

        let page = try await Self.approve(url)
        #expect(page.contains("signed in as Alice Martin"), "\(page)")
        // The app polls, finds the approval and goes on to the agreements and the passcode.
        Self.agreeAndChoosePasscode(terminal)
        #expect(terminal.next("Alice Martin (alice)"))
        #expect(terminal.next("gangway> "))
        terminal.type("quit")
        #expect(terminal.finish() == 0)
        if !plain { #expect(!terminal.screen.contains(Self.passcode)) }
        #expect(!terminal.screen.contains("gw_"), "no token is shown")

        // The tokens are in her store: the relaunch asks her passcode and nothing else.
        let again = try PseudoTerminalSession(arguments: arguments, environment: ["GANGWAY_KDF_ROUNDS": "1000"])
        #expect(again.next("Choose [1-2]: "), "the user picker of a shared device")
        again.type("1")
        #expect(again.next("Enter your passcode"))
        again.type(Self.passcode)
        #expect(again.next("gangway> "))
        again.type("quit")
        #expect(again.finish() == 0)
        #expect(!again.screen.contains("Sign In on Another Device"))
        #expect(!again.screen.contains(code))
        let files = FileManager.default.enumerator(at: directory.url, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.lastPathComponent != "admin-token" }
            .filter { (try? Data(contentsOf: $0))?.range(of: Data("gw_".utf8)) != nil }
        #expect(files?.isEmpty == true, "tokens are kept encrypted: \(files ?? [])")
    }

    @Test(
        "federated: the code approved at the company's provider (a real OpenID provider), her user linked by the admin",
        .enabled(if: TestIdentityProvider.isInstalled, "needs oidc-provider-mock in .build-oidc/venv (see .ci/run)")
    )
    func federatedDeviceGrant() async throws {
        try await TestIdentityProvider.using { provider in
            let directory = try TemporaryDirectory(prefix: "gangway-federated")
            defer { directory.remove() }
            let runner = GangwayProcess(deviceKeys: directory.appending("unused-keys"))
            let local = ["--data-dir", directory.url.path, "--bcrypt-cost", "4"]
            try await runner.makeEmbeddedServer(in: directory.url)
            let auth = try await runner.run(
                [
                    "admin", "auth", "--type", "oauth2", "--issuer", provider.issuer, "--client-id", "gangway-checks",
                    "--client-secret-stdin",
                ] + local,
                lines: ["provider-secret-e2e"]
            )
            #expect(auth.status == 0, "\(auth.standardError)")
            #expect(auth.output.contains("/apps/checks/oauth/callback (register it at the provider)"))
            let link = try await runner.run(
                ["admin", "users", "link", "alice", "--issuer", provider.issuer, "--subject", "idp-alice"] + local,
                lines: []
            )
            #expect(link.status == 0, "\(link.standardError)")

            let terminal = try PseudoTerminalSession(
                arguments: local + ["--plain"],
                environment: ["GANGWAY_KDF_ROUNDS": "1000"]
            )
            #expect(terminal.next("Choose [1-4]: "))
            terminal.type("email")
            #expect(terminal.next("Work email: "))
            terminal.type("alice@airline.example")
            #expect(terminal.next("Waiting for you to approve"))
            let (url, _) = try Self.verificationLink(on: terminal.screen)

            // On her phone: the page names the device; Approve goes to the provider, where
            // she signs in; back at the server she lets the device in, and the page says it is.
            let done = try await HeadlessBrowser.using { browser in
                try await browser.open(url)
                try await browser.type("\u{E007}", into: try await browser.focused())
                try await browser.source(once: "subject-input")
                try await browser.type("idp-alice\u{E007}", into: try await browser.element("#subject-input"))
                try await browser.source(once: "Let that device use your account?")
                try await browser.type("\u{E007}", into: try await browser.focused())
                return try await browser.source(once: "Your device is signed in")
            }
            #expect(done.contains("Your device is signed in as Alice Martin"), "\(done)")
            Self.agreeAndChoosePasscode(terminal)
            #expect(terminal.next("Alice Martin (alice)"))
            #expect(terminal.next("gangway> "))
            terminal.type("quit")
            #expect(terminal.finish() == 0)
            #expect(
                !OfflineWorkEndToEndTests.filesContain("provider-secret-e2e", under: directory.url),
                "the client secret is sealed"
            )
        }
    }

    @Test("her sessions revoked mid-work: the next read asks her to approve a new code, then shows the checks")
    func revokedMidWork() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-device-grant")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("unused-keys"))
        func admin(_ arguments: [String]) async throws -> GangwayProcess.Result {
            try await runner.makeEmbeddedServer(in: directory.url)
            return try await runner.run(
                ["admin"] + arguments + ["--data-dir", directory.url.path, "--bcrypt-cost", "4"],
                lines: []
            )
        }
        #expect(try await admin(["auth", "--type", "oauth2"]).status == 0)
        let terminal = try PseudoTerminalSession(
            arguments: ["--data-dir", directory.url.path, "--bcrypt-cost", "4", "--plain"],
            environment: ["GANGWAY_KDF_ROUNDS": "1000"]
        )
        #expect(terminal.next("Choose [1-4]: "))
        terminal.type("email")
        #expect(terminal.next("Work email: "))
        terminal.type("alice@airline.example")
        #expect(terminal.next("Waiting for you to approve"))
        let first = try Self.verificationLink(on: terminal.screen)
        #expect(try await Self.approve(first.url).contains("signed in as Alice Martin"))
        Self.agreeAndChoosePasscode(terminal)
        #expect(terminal.next("gangway> "))

        // The admin ends every session and refresh token of hers; the app still runs.
        let revoked = try await admin(["users", "revoke", "alice"])
        #expect(revoked.status == 0, "\(revoked.standardError)")
        terminal.type("home")
        #expect(terminal.next("Your session has ended. Sign in again."))
        #expect(terminal.next("Waiting for you to approve"))
        let screen = terminal.screen
        let again = try Self.verificationLink(
            on: String(screen[screen.range(of: "Your session has ended")!.lowerBound...])
        )
        #expect(again.code != first.code)
        #expect(try await Self.approve(again.url).contains("signed in as Alice Martin"))
        // The read goes on: the checks, fresh from the server.
        #expect(terminal.next("F-GTAJ", timeout: .seconds(60)))
        #expect(terminal.next("gangway> "))
        terminal.type("quit")
        #expect(terminal.finish() == 0)
    }
}

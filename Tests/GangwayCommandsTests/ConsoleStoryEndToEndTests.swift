import Foundation
import GangwayConsole
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import Testing

/// The reference's shared-device story, driven from the console: `gangway serve --demo`
/// as a process, an admin in headless Chromium who turns on "Allow upload of pending
/// changes from the previous user", and the built `gangway` app on a device shared by
/// alice and bob; then a wipe from the console, carried out at the device's next contact.
@Suite(
    "The console runs the shared-device story: the built app hands alice's changes to bob, and a wipe is carried out",
    .enabled(if: HeadlessBrowser.isInstalled, "needs Debian's chromium and chromium-driver"),
    .tags(.endToEnd, .browser),
    .skipsTags
)
struct ConsoleStoryEndToEndTests {
    static let password = "a long operator passphrase"

    @Test(
        "turned on in the console, the previous user's change goes with bob; a console wipe erases alice at her next launch"
    )
    func sharedDevice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let serve = try await ServeProcess(["--demo"], in: directory.appending("server"))
        defer { serve.stop() }
        let url = serve.url
        #expect(serve.printed.contains("Console: \(url)/console"))
        let runner = GangwayProcess(deviceKeys: directory.appending("device-keys"))
        let token = serve.tokenFile
        func admin(_ arguments: [String]) async throws -> GangwayProcess.Result {
            try await runner.run(["admin"] + arguments + ["--server", url, "--token-file", token], lines: [])
        }
        // Where the story starts: the app keeps a previous user's changes for their author.
        let off = try await admin(["shared-device", "--upload-previous-user-changes", "false"])
        #expect(off.status == 0, "\(off.standardError)")
        let added = try await admin(["operators", "add", "ops.root", "--role", "admin"])
        let link = try #require(added.output.split(separator: "\n").first { $0.contains("/console/enrol?token=") })
            .trimmingCharacters(in: .whitespaces)

        let deviceData = directory.appending("device-home").path
        func app(_ lines: [String]) async throws -> GangwayProcess.Result {
            try await runner.run(["--server", url, "--data-dir", deviceData], lines: lines)
        }
        let onboarded = try await app(DeviceAppEndToEndTests.aliceOnboards + ["quit"])
        #expect(onboarded.status == 0, "\(onboarded.standardError)")

        try await HeadlessBrowser.using { browser in
            try await browser.open(link)
            _ = try await browser.source(once: "Set up ops.root")
            let shown = try #require(
                try await browser.evaluate("return document.getElementById('secret').textContent") as? String
            )
            let secret = try #require(Base32.decode(shown))
            let code = TOTP(secret: secret).code(atStep: TOTP.step(at: Date()))
            try await browser.type(Self.password, into: try await browser.element("#password"))
            try await browser.type(Self.password, into: try await browser.element("#confirmation"))
            try await browser.type(code + "\u{E007}", into: try await browser.element("#code"))
            _ = try await browser.source(once: "ops.root (admin)")

            try await browser.open("\(url)/console/apps/checks")
            let before = try await browser.source(once: "Allow upload of pending changes from the previous user")
            #expect(
                !before.contains(
                    #"id="allowUploadPendingChangesFromPreviousUser" name="allowUploadPendingChangesFromPreviousUser" checked"#
                )
            )
            try await browser.click(try await browser.element("#allowUploadPendingChangesFromPreviousUser"))
            try await browser.click(try await browser.element("main button[type=submit]"))
            _ = try await browser.source(
                once: "the next person&#39;s session uploads the changes the previous person left pending"
            )

            let shift = try await app(
                [
                    "1", DeviceAppEndToEndTests.alicePasscode, "offline on",
                    "edit F-GTAJ-fuel status=done reading=9100kg", "offline off",
                ] + OfflineWorkEndToEndTests.bobAdded + ["quit"]
            )
            #expect(shift.status == 0, "\(shift.standardError)")
            #expect(
                shift.output.contains("Sending 1 change left on this device by other users, as theirs…"),
                "\(shift.output)"
            )
            #expect(shift.output.contains("The server answered: 1 applied."))
            let changes = try await admin(["data", "changes", "--json"])
            let recorded = try #require(
                try JSONSerialization.jsonObject(with: changes.standardOutput) as? [[String: Any]]
            )
            #expect(recorded.map { $0["author"] as? String } == ["alice"])
            #expect(recorded.map { $0["carrier"] as? String } == ["bob"])

            // The wipe, from the console: it waits for the device, which carries it out.
            try await browser.open("\(url)/console/devices?app=checks")
            _ = try await browser.source(once: "<h1>Devices</h1>")
            _ = try await browser.evaluate(
                """
                const row = [...document.querySelectorAll('tbody tr')]
                    .find(row => row.cells[0].textContent === 'alice');
                row.querySelector('button[value=wipe]').click();
                """
            )
            // It asks first.
            _ = try await browser.source(once: "Wipe this device?")
            try await browser.click(try await browser.element("button.danger"))
            _ = try await browser.source(once: "wiped: waits for the device&#39;s next contact")
            let relaunch = try await app(["1", DeviceAppEndToEndTests.alicePasscode, "quit"])
            #expect(relaunch.output.contains("Your administrator erased this user's data on this device."))
            try await browser.open("\(url)/console/devices?app=checks")
            _ = try await browser.source(once: "wiped: carried out")
        }
        let audit = try await admin(["audit", "--format", "json"])
        let events = try #require(try JSONSerialization.jsonObject(with: audit.standardOutput) as? [[String: Any]])
        #expect(events.prefix(2).map { $0["action"] as? String } == ["updateDevice", "updateApp"])
        #expect(
            events.prefix(2).allSatisfy { $0["actor"] as? String == "ops.root" && $0["via"] as? String == "console" }
        )

        // The story as the overview counts it, and the lists an operator pages through.
        let activity = try await admin(["activity", "--period", "day", "--json"])
        #expect(activity.status == 0, "\(activity.standardError)")
        let buckets = try #require(
            (try JSONSerialization.jsonObject(with: activity.standardOutput) as? [String: Any])?["buckets"]
                as? [[String: Any]]
        )
        #expect(buckets.count == 24)
        func total(_ name: String) -> Int { buckets.reduce(0) { $0 + (($1[name] as? Int) ?? 0) } }
        #expect(total("signIns") >= 2, "alice and bob signed in")
        #expect(total("registrations") >= 2)
        #expect(total("changes") >= 1, "alice's change, carried by bob")
        let table = try await admin(["activity"])
        #expect(table.output.hasPrefix("DAY (UTC)"), "\(table.output)")
        #expect(table.output.contains("ACTIVE  REGISTERED  SIGN-INS  FAILED  CHANGES  CONFLICTS  REFUSED"))
        let lines = table.output.split(separator: "\n").count
        #expect(lines == 10, "the header, a week, the total, the note")
        let attention = try await admin(["attention"])
        #expect(attention.status == 0, "\(attention.standardError)")
        let wiped = try await admin(["devices", "list", "--status", "wiped"])
        #expect(wiped.output.contains("wiped (carried out)") && wiped.output.contains("alice"), "\(wiped.output)")
        #expect(!wiped.output.contains("bob"))
        let last = try await admin(["devices", "list", "--after", "ffffffff-ffff-ffff-ffff-ffffffffffff"])
        #expect(last.output == "No more devices after that registration.\n", "\(last.output)")
        let found = try await admin(["users", "list", "--prefix", "AL"])
        #expect(found.output.contains("alice") && !found.output.contains("bob"), "\(found.output)")
        let warnings = try await admin(["logs", "--user", "alice", "--min-level", "warning", "--since", "2026-01-01"])
        #expect(warnings.status == 0, "\(warnings.standardError)")
        for refused in [
            ["logs", "--min-level", "loud"], ["logs", "--since", "yesterday"],
            ["logs", "--user", "alice", "--upload", "true"],
            ["activity", "--period", "year"], ["devices", "list", "--limit", "0"],
            ["users", "list", "--limit", "1001"], ["devices", "list", "--after", "not-a-registration"],
        ] {
            let result = try await admin(refused)
            #expect(result.status == 64, "\(refused): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").first?.hasPrefix("Error: ") == true)
        }
        let unknown = try await admin(["activity", "--app", "nowhere"])
        #expect(unknown.status == 1 && unknown.standardError.contains("There is no app with this ID."))
    }
}

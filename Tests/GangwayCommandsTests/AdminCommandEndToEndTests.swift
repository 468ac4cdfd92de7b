import Foundation
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `gangway admin`, run as a process against the local server (started for the command,
/// or the one a running device app serves) and against a separate `gangway serve`.
@Suite("gangway admin, run as a process", .serialized, .tags(.endToEnd), .skipsTags)
struct AdminCommandEndToEndTests {
    struct Machine {
        let directory: TemporaryDirectory
        let runner: GangwayProcess

        init() throws {
            directory = try TemporaryDirectory(prefix: "gangway-admin")
            runner = GangwayProcess(deviceKeys: directory.appending("unused-keys"))
        }

        /// `gangway admin ARGUMENTS --data-dir DIR`.
        func admin(_ arguments: [String], lines: [String] = []) async throws -> GangwayProcess.Result {
            try await runner.makeEmbeddedServer(in: directory.url)
            return try await runner.run(
                ["admin"] + arguments + ["--data-dir", directory.url.path, "--bcrypt-cost", "4"],
                lines: lines
            )
        }

        /// The device app on this machine's data directory.
        func app(_ lines: [String], arguments: [String] = []) async throws -> GangwayProcess.Result {
            try await runner.run(["--data-dir", directory.url.path, "--bcrypt-cost", "4"] + arguments, lines: lines)
        }

        var adminToken: String {
            (try? String(contentsOf: directory.appending("server/admin-token"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "missing"
        }
    }

    @Test(
        "with nothing serving, the local server starts for the command: the seeded app and users; the token never shows"
    )
    func localServerStartedForTheCommand() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let apps = try await machine.admin(["apps"])
        #expect(apps.status == 0, "\(apps.standardError)")
        #expect(apps.output.contains("checks  Aircraft Ground Checks  airline.example"))
        let users = try await machine.admin(["users"])
        #expect(users.output.contains("alice  Alice Martin  active"))
        #expect(users.output.contains("bob    Bob Okafor    active"))
        let settings = try await machine.admin(["settings"])
        #expect(settings.output.contains("Passcode:        at least 8 characters"))
        #expect(settings.output.contains("Minimum version: any"))
        for result in [apps, users, settings] {
            #expect(!result.output.contains(machine.adminToken))
            #expect(!result.standardError.contains(machine.adminToken))
            #expect(result.standardError.isEmpty, "no log noise: \(result.standardError)")
        }
        // The server stopped with the command: its URL file is gone.
        #expect(!FileManager.default.fileExists(atPath: machine.directory.appending("server/url").path))
    }

    @Test(
        "operators: added with a link to enrol, their role changed, removed; the audit lists each change as a table, CSV and JSON"
    )
    func operatorsAndAudit() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let none = try await machine.admin(["operators"])
        #expect(none.status == 0, "\(none.standardError)")
        #expect(none.output.contains("No operators."))
        let added = try await machine.admin(["operators", "add", "ops.alice", "--role", "admin"])
        #expect(added.status == 0, "\(added.standardError)")
        // The server ran for the command alone: the link is a path on the address it serves at.
        #expect(added.output.contains("once 'gangway serve' runs:\n/console/enrol?token="), "\(added.output)")
        await #expect(try machine.admin(["operators", "add", "ops.alice", "--role", "viewer"]).status == 1)
        let formula = try await machine.admin(["operators", "add", "=cmd|x", "--role", "viewer"])
        #expect(formula.status == 64, "refused before it is sent")
        #expect(formula.standardError.contains("the operator name '=cmd|x' must start with"))
        await #expect(try machine.admin(["operators", "add", "ops.bob", "--role", "root"]).status == 64)
        let role = try await machine.admin(["operators", "role", "ops.alice", "operator"])
        #expect(role.output.contains("ops.alice is now an operator."), "\(role.output)")
        let listed = try await machine.admin(["operators", "list"])
        #expect(listed.output.contains("ops.alice  operator  not set up yet"), "\(listed.output)")
        let identity = ["--issuer", "https://login.example.com", "--subject", "s-alice"]
        let link = try await machine.admin(["operators", "link", "ops.alice"] + identity)
        #expect(link.output.contains("Linked s-alice at https://login.example.com to the operator ops.alice."))
        let linked = try await machine.admin(["operators"])
        #expect(linked.output.contains("s-alice at https://login.example.com"), "\(linked.output)")
        let twice = try await machine.admin(["operators", "link", "ops.alice"] + identity)
        #expect(
            twice.status == 1 && twice.standardError.contains("linked to ops.alice already"),
            "\(twice.standardError)"
        )
        let http = try await machine.admin([
            "operators", "link", "ops.alice", "--issuer", "http://x.example", "--subject", "s",
        ])
        #expect(http.status == 1 && http.standardError.contains("https URL"), "\(http.standardError)")
        await #expect(try machine.admin(["operators", "link", "ops.alice", "--subject", "s"]).status == 64)
        await #expect(try machine.admin(["operators", "unlink", "ops.alice"] + identity).status == 0)
        let gone = try await machine.admin(["operators", "unlink", "ops.alice"] + identity)
        #expect(gone.status == 1 && gone.standardError.contains("not linked"), "\(gone.standardError)")
        await #expect(try machine.admin(["operators", "remove", "nobody"]).status == 1)
        await #expect(try machine.admin(["operators", "remove", "ops.alice"]).status == 0)

        let table = try await machine.admin(["audit"])
        #expect(table.status == 0, "\(table.standardError)")
        let rows = table.output.split(separator: "\n")
        #expect(rows.count == 6, "\(table.output)")
        let actions = [
            "removeOperator", "unlinkOperatorIdentity", "linkOperatorIdentity", "updateOperator", "addOperator",
        ]
        for (row, action) in zip(rows.dropFirst(), actions) {
            #expect(row.contains("admin token  api  \(action)"), "\(row)")
        }
        // What changed, where the action does not say it all.
        #expect(rows[4].hasSuffix("127.0.0.1  role: admin → operator"), "\(rows[4])")
        #expect(rows[5].hasSuffix("127.0.0.1  role: admin"), "\(rows[5])")
        let csv = try await machine.admin(["audit", "--format", "csv"])
        let lines = csv.output.split(separator: "\n")
        #expect(lines.first == "id,at,actor,via,action,target,address,detail")
        #expect(
            lines.dropFirst().first?.hasSuffix(",admin token,api,removeOperator,/admin/operators/ops.alice,127.0.0.1,")
                == true
        )
        #expect(lines.last?.hasSuffix(",addOperator,/admin/operators/ops.alice,127.0.0.1,role: admin") == true)
        let json = try await machine.admin(["audit", "--format", "json", "--limit", "1"])
        let events = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
        #expect(events?.count == 1)
        #expect(events?.first?["action"] as? String == "removeOperator")
        await #expect(try machine.admin(["audit", "--limit", "0"]).status == 64)
        let before = try await machine.admin(["audit", "--before", "1"])
        #expect(before.status == 0 && before.output.contains("No events before 1."), "\(before)")
        for result in [added, table, csv, json] { #expect(!result.output.contains(machine.adminToken)) }

        // The role is taken as 'operators add' takes it too; once, not twice or never.
        await #expect(try machine.admin(["operators", "add", "ops.bea", "--role", "viewer"]).status == 0)
        let asOption = try await machine.admin(["operators", "role", "ops.bea", "--role", "operator"])
        #expect(asOption.output.contains("ops.bea is now an operator."), "\(asOption.standardError)")
        await #expect(try machine.admin(["operators", "role", "ops.bea"]).status == 64)
        await #expect(try machine.admin(["operators", "role", "ops.bea", "admin", "--role", "admin"]).status == 64)
        // A name may start with a dash.
        let dashed = try await machine.admin(["users", "add", "dana", "--name", "-2+3"], lines: ["dana-password-1"])
        #expect(dashed.status == 0, "\(dashed.standardError)")
        await #expect(try machine.admin(["users"]).output.contains("-2+3"))
    }

    @Test(
        "destinations: added with the person's identity or a fixed credential, listed, changed, removed; bad ones refused"
    )
    func destinations() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        // The device app's embedded server gave the demo app its crew backend; gone, none is left.
        let demo = try await machine.admin(["destinations"])
        #expect(demo.status == 0, "\(demo.standardError)")
        #expect(demo.output.contains("crew         http://127.0.0.1:"), "\(demo.output)")
        await #expect(try machine.admin(["destinations", "remove", "crew"]).output.contains("Removed crew."))
        let none = try await machine.admin(["destinations"])
        #expect(none.status == 0 && none.output.contains("No destinations."), "\(none.standardError)")
        let added = try await machine.admin([
            "destinations", "add", "orders", "--url", "https://orders.example.com/api",
        ])
        #expect(added.output.contains("Added orders: https://orders.example.com/api, with the signed-in person."))
        let keyed = try await machine.admin(
            [
                "destinations", "add", "stock", "--url", "https://stock.example.com", "--credential-header",
                "X-API-Key", "--credential-stdin",
            ],
            lines: ["stock-secret-1"]
        )
        #expect(keyed.output.contains("Added stock: https://stock.example.com, with a fixed credential in X-API-Key."))
        let changed = try await machine.admin([
            "destinations", "add", "orders", "--url", "https://orders.example.com/v2",
        ])
        #expect(changed.output.contains("Changed orders"), "\(changed.output)")
        let listed = try await machine.admin(["destinations", "list"])
        #expect(listed.output.contains("orders       https://orders.example.com/v2  person"), "\(listed.output)")
        #expect(listed.output.contains("credential in X-API-Key  none"), "\(listed.output)")
        for result in [keyed, listed] { #expect(!result.output.contains("stock-secret-1")) }
        let http = try await machine.admin(["destinations", "add", "x", "--url", "http://x.example.com"])
        #expect(http.status == 1 && http.standardError.contains("https URL"), "\(http.standardError)")
        let credentialFile = machine.directory.appending("credential")
        try Data("c\n".utf8).write(to: credentialFile)
        chmod(credentialFile.path, 0o600)
        await #expect(
            try machine.admin(
                ["destinations", "add", "x", "--url", "https://x.example", "--credential-file", credentialFile.path]
            ).status == 64,
            "no header to send it in"
        )
        // A credential file others can write is refused, nothing added.
        chmod(credentialFile.path, 0o666)
        let writable = try await machine.admin([
            "destinations", "add", "x", "--url", "https://x.example", "--credential-header", "X-Key",
            "--credential-file", credentialFile.path,
        ])
        #expect(writable.status == 1, "\(writable.standardError)")
        #expect(
            writable.standardError.hasPrefix(
                "gangway admin: the credential file \(credentialFile.path): others can write"
            ),
            "one sentence, no debug text: \(writable.standardError)"
        )
        await #expect(!(try machine.admin(["destinations", "list"]).output.contains("x.example")))
        await #expect(try machine.admin(["destinations", "remove", "orders"]).output.contains("Removed orders."))
        let gone = try await machine.admin(["destinations", "remove", "orders"])
        #expect(gone.status == 1 && gone.standardError.contains("no destination of this name"), "\(gone.standardError)")
    }

    @Test(
        "an empty or mistyped ID or name is a bad command line, refused with the rule before anything is sent"
    )
    func namesInPaths() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let rule = "must start with an ASCII letter or digit and hold only ASCII letters, digits and '.', '_' and '-'."
        let refusals: [([String], String)] = [
            (["settings", "--app", ""], "--app '' must be 1 to 64 characters long."),
            (["policy", "--app", " checks"], "--app ' checks' " + rule),
            (["apps", "add", "..", "--name", "X"], "the app ID '..' " + rule),
            (["data", "list", ""], "the entity set '' must be 1 to 64 characters long."),
            (["data", "put", "checks", "", "a=b"], "the entity ID '' must be 1 to 64 characters long."),
            (["data", "fields", "ü", "a"], "the entity set 'ü' " + rule),
            (["destinations", "remove", ""], "the destination name '' must be 1 to 64 characters long."),
            (["users", "block", "--", "-x"], "the user name '-x' must start with an ASCII letter or digit"),
            (["operators", "add", "a b", "--role", "admin"], "the operator name 'a b' must start with"),
            (["logs", "--since", "2026-11-28", "--until", "2026-11-01"], "--since must be before --until"),
            (["audit", "--limit", "-5"], "--limit is 1 to 1000."),
            (["data", "changes", "--limit", "-1"], "--limit is 1 to 1000."),
            // The policy's ranges are its field table's, named by option rather than by the API's key.
            (["policy", "--min-length", "1000"], "--min-length must be between 1 and 256."),
            (["policy", "--retry-limit", "0", "--min-length", "8"], "--retry-limit must be between 1 and"),
            (
                ["agreements", "--eula-version", String(repeating: "v", count: 65)],
                "--eula-version must be at most 64 characters, without control characters."
            ),
            (["agreements", "--consent-version", "1\u{1B}[2J"], "--consent-version must be at most 64 characters"),
            // Names by the rule the server holds, before a password is asked.
            (["apps", "add", "app2", "--name", " \u{3000}"], "--name must not be blank."),
            (["users", "add", "dave", "--name", ""], "--name must be 1 to 128 characters long."),
            (["users", "add", "dave", "--name", "Dave\u{202E}"], "--name must not contain control characters"),
            (["devices", "wipe", ""], "the registration or user name '' must be"),
        ]
        for (arguments, message) in refusals {
            let result = try await machine.admin(arguments)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
        await #expect(!(try machine.admin(["apps"]).output.contains("app2")), "nothing added")
        await #expect(!(try machine.admin(["users"]).output.contains("dave")), "nothing added")
    }

    @Test("a stale url file: what listens there now gets a challenge and no token; the local server starts instead")
    func staleURL() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        await #expect(try machine.admin(["apps"]).status == 0)
        try await ImpostorServer.run { impostor in
            try PrivateFiles.write(
                Data((impostor.url.absoluteString + "\n").utf8),
                to: machine.directory.appending("server/url")
            )
            // Off the cooperative threads: the impostor answers on them while the command waits.
            let users = try await machine.runner.run(
                ["admin", "users", "--data-dir", machine.directory.url.path, "--bcrypt-cost", "4"],
                lines: []
            )
            #expect(users.status == 0, "\(users.standardError)")
            #expect(users.output.contains("alice  Alice Martin  active"))
            #expect(impostor.authorizations.isEmpty)
            #expect(impostor.requestedPaths == ["/admin/proof"])
        }
    }

    @Test(
        "a running serve whose admin-token file is missing or another server's: said as the token, not as a directory in use"
    )
    func runningServerOtherToken() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-admin")
        defer { directory.remove() }
        let data = directory.appending("server")
        let serve = try await ServeProcess(["--log-level", "warning"], in: data)
        defer { serve.stop() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let tokenFile = data.appendingPathComponent("admin-token")
        let token = try Data(contentsOf: tokenFile)
        await #expect(try runner.run(["admin", "apps", "--data-dir", data.path]).status == 0, "the token reaches it")
        for replacement in [Data("another-servers-token-0123456789abcdef".utf8), nil] {
            try FileManager.default.removeItem(at: tokenFile)
            if let replacement { try PrivateFiles.write(replacement, to: tokenFile) }
            let refused = try await runner.run(["admin", "apps", "--data-dir", data.path])
            #expect(refused.status == 1, "\(refused.standardError)")
            #expect(
                refused.standardError.contains("did not take the admin token in \(tokenFile.path)"),
                "\(refused.standardError)"
            )
            #expect(!refused.standardError.contains("in use by"), "\(refused.standardError)")
            #expect(!refused.standardError.contains("another-servers-token"), "no token shown")
        }
        try PrivateFiles.write(token, to: tokenFile)
        await #expect(try runner.run(["admin", "apps", "--data-dir", data.path]).status == 0, "its own again")
    }

    @Test("a user added by the admin onboards on the device; a blocked user cannot sign in")
    func addAndBlockUsers() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let password = "carol-walkaround"
        let added = try await machine.admin(["users", "add", "carol", "--name", "Carol Diaz"], lines: [password])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.output.contains("Added carol."))
        #expect(!added.output.contains(password) && !added.standardError.contains(password))
        // A name that is taken is said before a password is asked (none is given here).
        let duplicate = try await machine.admin(["users", "add", "carol"], lines: [])
        #expect(duplicate.status == 1)
        #expect(duplicate.standardError.contains("a user named carol exists already; nothing was added."))
        #expect(!duplicate.standardError.contains("no password given"))
        let weak = try await machine.admin(["users", "add", "dave"], lines: ["short"])
        #expect(weak.status == 1)
        #expect(weak.standardError.contains("the server answered 400"))
        #expect(!weak.standardError.contains("short"), "the refused password is not repeated")
        // A password line that is not UTF-8 text is not taken with its bytes replaced: two
        // such passwords would be one.
        let garbled = try await machine.runner.run(
            ["admin", "users", "add", "erin", "--data-dir", machine.directory.url.path, "--bcrypt-cost", "4"],
            input: Data("erin-password-1".utf8) + Data([0xFF, 0xFE, 0x0A])
        )
        #expect(garbled.status != 0, "\(garbled)")
        #expect(garbled.standardError.contains("That line is not UTF-8 text"), "\(garbled)")
        await #expect(!(try machine.admin(["users", "list"]).output.contains("erin")))

        let passcode = DeviceAppEndToEndTests.alicePasscode
        let onboarded = try await machine.app([
            "email", "carol@airline.example", "carol", password, "accept", "allow", passcode, passcode, "quit",
        ])
        #expect(onboarded.output.contains("Signed in:      Carol Diaz (carol)"), "\(onboarded.output)")

        let blocked = try await machine.admin(["users", "block", "carol"])
        #expect(blocked.status == 0)
        #expect(blocked.output.contains("Blocked carol: their sessions ended and they cannot sign in."))
        let again = try await machine.admin(["users", "block", "carol"])
        #expect(again.status == 0 && again.output.contains("carol is blocked already; nothing changed."), "\(again)")
        await #expect(try machine.admin(["users"]).output.contains("carol  Carol Diaz    blocked"))
        // Blocking ended her session: the next launch asks her to sign in, and the server
        // refuses her right password as it would a wrong one.
        let refused = try await machine.app(["1", passcode, "carol", password, ""])
        #expect(refused.output.contains("Wrong user name or password."), "\(refused.output)")
        #expect(!refused.output.contains("Signed in:      Carol Diaz"))

        await #expect(try machine.admin(["users", "unblock", "carol"]).status == 0)
        let back = try await machine.app(["1", passcode, "carol", password, "quit"])
        #expect(back.output.contains("Signed in:      Carol Diaz (carol)"), "\(back.output)")
        await #expect(try machine.admin(["users", "block", "nobody"]).status == 1)
    }

    @Test("the policy: shown, changed key by key, bad values refused with nothing changed")
    func policy() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let changed = try await machine.admin([
            "policy", "--min-length", "12", "--require-digit", "true", "--lock-timeout", "60",
        ])
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(changed.output.contains("at least 12 characters, at least one digit"))
        #expect(changed.output.contains("locks after 60 s away"))
        let bad = try await machine.admin(["policy", "--min-length", "0"])
        #expect(bad.status == 64, "a bad command line, refused before it is sent")
        #expect(bad.standardError.contains("--min-length must be between 1 and 256."), "\(bad.standardError)")
        let notBool = try await machine.admin(["policy", "--require-digit", "maybe"])
        #expect(notBool.status == 64)
        let shown = try await machine.admin(["policy"])
        #expect(shown.output.contains("at least 12 characters"), "the refused change left the policy as it was")
        let shared = try await machine.admin(["shared-device", "--upload-previous-user-changes", "false"])
        #expect(shared.output.contains("are not uploaded"))
        let unknownApp = try await machine.admin(["policy", "--app", "nope"])
        #expect(unknownApp.status == 1)
        #expect(unknownApp.standardError.contains("the server answered 404"))
    }

    @Test("an inactive version: the device is refused at launch and told to update; clearing lets it in")
    func inactiveVersion() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let passcode = DeviceAppEndToEndTests.alicePasscode
        _ = try await machine.app(DeviceAppEndToEndTests.aliceOnboards + ["quit"])
        let set = try await machine.admin(["minimum-version", "2.0"])
        #expect(set.output.contains("Minimum version: 2.0; older versions are inactive"))
        await #expect(try machine.admin(["minimum-version", "two"]).status == 64)
        let refused = try await machine.app(["1", "cancel"])
        #expect(
            refused.output.contains("Version 1.0.0 of Aircraft Ground Checks is no longer active"),
            "\(refused.output)"
        )
        #expect(refused.output.contains("Update the app to version 2.0 or later."))
        #expect(!refused.output.contains("Signed in:"))
        await #expect(try machine.admin(["minimum-version", "--clear"]).output.contains("Minimum version: any"))
        let allowed = try await machine.app(["1", passcode, "quit"])
        #expect(allowed.output.contains("Signed in:      Alice Martin (alice)"))
    }

    @Test("a device wiped while the app was closed: the next launch erases alice's data, says so, and starts over")
    func wipedWhileClosed() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        _ = try await machine.app(DeviceAppEndToEndTests.aliceOnboards + ["quit"])
        let wiped = try await machine.admin(["devices", "wipe", "alice"])
        #expect(wiped.status == 0, "\(wiped.standardError)")
        await #expect(
            try machine.admin(["devices", "wipe", "alice"]).status == 1,
            "no registration of alice is left to wipe"
        )
        let relaunch = try await machine.app(["1", DeviceAppEndToEndTests.alicePasscode])
        // Why, and by whom: not only that the data went.
        #expect(relaunch.output.contains("Your administrator erased this user's data on this device."))
        #expect(!relaunch.output.contains("onboard again"), "said once, with its reason")
        #expect(relaunch.output.contains("== Welcome =="))
        #expect(!relaunch.output.contains("Signed in:"))
        let stores =
            (try? FileManager.default.contentsOfDirectory(atPath: machine.directory.appending("device/stores").path))
            ?? []
        #expect(stores.filter { UUID(uuidString: $0) != nil }.isEmpty)
    }

    @Test("lock and unlock a registration; an unknown registration and a bad app ID are refused")
    func lockAndUnlock() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        _ = try await machine.app(DeviceAppEndToEndTests.aliceOnboards + ["quit"])
        await #expect(try machine.admin(["devices", "lock", "alice"]).output.contains("is locked"))
        await #expect(try machine.admin(["devices"]).output.contains("locked"))
        // Locked: the next launch asks alice to sign in again.
        let locked = try await machine.app(["1", DeviceAppEndToEndTests.alicePasscode, ""])
        #expect(locked.output.contains("== Sign In =="), "\(locked.output)")
        #expect(!locked.output.contains("Signed in:"))
        // The lock holds: her right password on that device is refused, and says why.
        let refused = try await machine.app(["1", DeviceAppEndToEndTests.alicePasscode, "alice", "preflight-alice", ""])
        #expect(refused.output.contains("Ask them to unlock it, then sign in again."), "\(refused.output)")
        #expect(!refused.output.contains("Signed in:"))
        await #expect(
            try machine.admin(["devices", "unlock", "ALICE"]).output.contains("is active"),
            "a name in any case"
        )
        // The lock ended her session on the server: she signs in once more, and is in.
        let unlocked = try await machine.app([
            "1", DeviceAppEndToEndTests.alicePasscode, "alice", "preflight-alice", "quit",
        ])
        #expect(unlocked.output.contains("Signed in:      Alice Martin (alice)"), "\(unlocked.output)")

        let unknown = try await machine.admin(["devices", "lock", "nobody"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("no registration nobody"))
        let badID = try await machine.admin(["apps", "add", "no spaces!", "--name", "Bad"])
        #expect(badID.status == 64, "refused before it is sent")
        #expect(badID.standardError.contains("the app ID 'no spaces!' must start with an ASCII letter or digit"))
        await #expect(!(try machine.admin(["apps"]).output.contains("Bad")))
    }

    @Test("gangway admin data: bad NAME=VALUE pairs exit 64, the server's refusals exit 1, and nothing changes")
    func dataBadInput() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        for arguments in [["checks", "x", "novalue"], ["checks", "x", "=v"], ["checks", "x", "a=1", "a=2"]] {
            let refused = try await machine.admin(["data", "put"] + arguments)
            #expect(refused.status == 64, "\(arguments)")
        }
        let badName = try await machine.admin(["data", "put", "checks", "x", "1st=v"])
        #expect(badName.status == 64, "refused before it is sent")
        #expect(badName.standardError.contains("'1st' is not a field name (a letter, then letters, digits and '_')."))
        let control = try await machine.admin(["data", "put", "checks", "x", "note=a\u{7}b"])
        #expect(control.status == 1)
        #expect(control.standardError.contains("must not contain control characters"))
        #expect(!control.standardError.contains("a\u{7}b"), "the refused value is not repeated")
        let badSet = try await machine.admin(["data", "list", "b@d"])
        #expect(badSet.status == 64, "refused before it is sent")
        #expect(badSet.standardError.contains("the entity set 'b@d' must start with"))
        let missing = try await machine.admin(["data", "delete", "checks", "nope"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("the set 'checks' has no entity 'nope'; nothing was deleted."))
        let missingSet = try await machine.admin(["data", "delete", "checkz", "X1"])
        #expect(missingSet.status == 1)
        #expect(missingSet.standardError.contains("has no entity set 'checkz'; nothing was deleted."))
        // A mistyped set name is an error, not a new set; --new-set on a set that exists too.
        let typo = try await machine.admin(["data", "put", "chekcs", "F-GKXA-fuel", "status=done"])
        #expect(typo.status == 1)
        #expect(typo.standardError.contains("has no entity set 'chekcs'"), "\(typo.standardError)")
        // Nothing was made: the set is still unknown, and listing it says so.
        let unknown = try await machine.admin(["data", "list", "chekcs", "--json"])
        #expect(unknown.status == 1)
        #expect(unknown.output.isEmpty)
        #expect(unknown.standardError.contains("has no entity set 'chekcs'."), "\(unknown.standardError)")
        let twice = try await machine.admin(["data", "put", "checks", "X1", "status=open", "--new-set"])
        #expect(twice.status == 1)
        #expect(twice.standardError.contains("has an entity set 'checks' already"))
        let listed = try await machine.admin(["data"])
        #expect(listed.output.components(separatedBy: "\n").filter { $0.hasPrefix("F-") }.count == 5)
        #expect(!listed.output.contains("x "))
        // A page at a time: the command says how to list the next.
        let first = try await machine.admin(["data", "list", "checks", "--limit", "2"])
        let rows = first.output.components(separatedBy: "\n").filter { $0.hasPrefix("F-") }
        #expect(rows.count == 2)
        let last = try #require(rows.last?.split(separator: " ").first.map(String.init))
        #expect(first.output.contains("More follow: gangway admin data list checks --after \(last)"), "\(first.output)")
        let rest = try await machine.admin(["data", "list", "checks", "--after", last, "--limit", "1000"])
        #expect(rest.output.components(separatedBy: "\n").filter { $0.hasPrefix("F-") }.count == 3)
        #expect(!rest.output.contains("More follow"))
        let badAfter = try await machine.admin(["data", "list", "checks", "--after", "b@d"])
        #expect(badAfter.status == 64)
    }

    @Test("gangway admin data fields: shows, sets, prints JSON and clears which fields devices may change")
    func dataFields() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        // The demo app lets devices record a check's status, reading and note, and add checks.
        await #expect(
            try machine.admin(["data", "fields"]).output
                == "checks: devices may set note, reading, status; they may create entities.\n"
        )
        await #expect(
            try machine.admin(["data", "fields", "checks", "--clear"]).output == "checks: devices may change nothing.\n"
        )
        await #expect(try machine.admin(["data", "fields"]).output == "checks: devices may change nothing.\n")
        let set = try await machine.admin(["data", "fields", "checks", "status", "reading", "note"])
        #expect(set.status == 0, "\(set.standardError)")
        #expect(set.output == "checks: devices may set note, reading, status; they may not create entities.\n")
        let creation = try await machine.admin(["data", "fields", "checks", "--creation"])
        #expect(creation.output == "checks: devices may set note, reading, status; they may create entities.\n")
        let json = try await machine.admin(["data", "fields", "checks", "--json"])
        #expect(
            json.output == #"{"allowsCreation":true,"entitySet":"checks","writableFields":["note","reading","status"]}"#
                + "\n"
        )
        for arguments in [["checks", "1st"], ["checks", "a", "a"], ["checks", "status", "--clear"]] {
            let refused = try await machine.admin(["data", "fields"] + arguments)
            #expect(refused.status == 64, "\(arguments)")
        }
        // A mistyped set is an error, and sets no rule; --new-set starts one.
        let typo = try await machine.admin(["data", "fields", "chekcs", "status"])
        #expect(typo.status == 1)
        #expect(typo.standardError.contains("has no entity set 'chekcs'; no rule was set."), "\(typo.standardError)")
        await #expect(
            try machine.admin(["data", "fields", "chekcs"]).output == "chekcs: devices may change nothing.\n"
        )
        let started = try await machine.admin(["data", "fields", "tyres", "reading", "--creation", "--new-set"])
        #expect(
            started.output == "tyres: devices may set reading; they may create entities.\n",
            "\(started.standardError)"
        )
        await #expect(
            try machine.admin(["data", "fields", "tyres", "reading", "note"]).status == 0,
            "its rules make it known"
        )
        await #expect(
            try machine.admin(["data", "fields", "checks", "--clear"]).output == "checks: devices may change nothing.\n"
        )
        let listed = try await machine.admin(["data", "list", "checks", "--json"])
        let entities = try #require(
            try JSONSerialization.jsonObject(with: listed.standardOutput) as? [[String: Any]]
        )
        #expect(entities.count == 5, "the demo's checks")
        #expect(entities.allSatisfy { $0["version"] as? Int == 1 && $0["updatedBy"] as? String == "admin" })
        #expect(entities.allSatisfy { ($0["fields"] as? [String: String])?["aircraft"] != nil })
        await #expect(try machine.admin(["data", "changes"]).output == "No changes.\n")
        await #expect(try machine.admin(["data", "changes", "--json"]).output == "[]\n")
        await #expect(try machine.admin(["data", "conflicts"]).output == "No conflicts.\n")
        await #expect(try machine.admin(["data", "changes", "--outcome", "maybe"]).status == 64)
        await #expect(try machine.admin(["data", "changes", "--limit", "0"]).status == 64)
    }

    @Test("gangway admin data retention: shows the default, sets the days, refuses days out of range")
    func dataRetention() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let shown = try await machine.admin(["data", "retention"])
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(
            shown.output
                == "Removals kept:   30 days; a device away longer reads its sets again from the start\n"
        )
        let set = try await machine.admin(["data", "retention", "--days", "1"])
        #expect(set.output == "Removals kept:   1 day; a device away longer reads its sets again from the start\n")
        await #expect(try machine.admin(["settings"]).output.contains("Removals kept:   1 day;"))
        for days in ["0", "3651", "x"] {
            let refused = try await machine.admin(["data", "retention", "--days", days])
            #expect(refused.status == 64, "\(days)")
            #expect(!refused.standardError.contains("Fatal"))
        }
        let refused = try await machine.admin(["data", "retention", "--days", "0"])
        #expect(refused.standardError.contains("--days must be between 1 and 3650."), "\(refused.standardError)")
        await #expect(try machine.admin(["data", "retention"]).output.contains("1 day;"), "nothing changed")
    }

    @Test("gangway admin data schema: shows the demo's, adds a field, refuses what entities do not fit, removes it")
    func dataSchema() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let demo = try await machine.admin(["data", "schema"])
        #expect(
            demo.output == """
                checks: 7 fields
                  aircraft  text       indexed
                  stand     text       indexed
                  item      text
                  status    text       required  indexed
                  reading   text
                  note      text
                  due       date-time  indexed

                """,
            "\(demo.standardError)"
        )
        let added = try await machine.admin(["data", "schema", "checks", "--add", "pressure:decimal"])
        #expect(added.status == 0 && added.output.contains("checks: 8 fields"), "\(added.standardError)")
        #expect(added.output.contains("\n  pressure  decimal\n"))
        let json = try await machine.admin(["data", "schema", "checks", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        let fields = try #require((object["schema"] as? [String: Any])?["fields"] as? [[String: Any]])
        #expect(fields.last?["name"] as? String == "pressure" && fields.last?["type"] as? String == "decimal")

        // The server checks a write against it, naming the field and not the value.
        let badPut = try await machine.admin(["data", "put", "checks", "X1", "status=open", "pressure=lowish"])
        #expect(badPut.status == 1)
        #expect(
            badPut.standardError.contains("pressure in checks is a decimal number, as 12.5."),
            "\(badPut.standardError)"
        )
        #expect(!badPut.standardError.contains("lowish"))
        // A change the checks do not fit is refused, saying why, and changes nothing.
        let narrowed = try await machine.admin([
            "data", "schema", "checks", "--field", "stand:integer", "--field", "status:text",
        ])
        #expect(narrowed.status == 1)
        #expect(
            narrowed.standardError.contains("5 entities of checks would not fit the schema; the first, "),
            "\(narrowed.standardError)"
        )
        await #expect(try machine.admin(["data", "schema"]).output.contains("checks: 8 fields"))

        for arguments in [
            ["--field", "stand:money"], ["--add", "a:text", "--remove"], ["--field", "a:text", "--field", "a:integer"],
            ["--add", "Ünits:text"], ["--field", "a:text:required:required"],
        ] {
            let refused = try await machine.admin(["data", "schema", "checks"] + arguments)
            #expect(refused.status == 64, "\(arguments): \(refused.standardError)")
        }
        let typo = try await machine.admin(["data", "schema", "chekcs", "--add", "a:text"])
        #expect(typo.status == 1 && typo.standardError.contains("has no entity set 'chekcs'; no schema was declared."))
        let started = try await machine.admin([
            "data", "schema", "tyres", "--field", "psi:integer:required", "--new-set",
        ])
        #expect(started.output == "tyres: 1 field\n  psi  integer  required\n", "\(started.standardError)")
        await #expect(try machine.admin(["data", "list", "tyres"]).status == 0, "its schema makes it known")

        let removed = try await machine.admin(["data", "schema", "checks", "--remove"])
        #expect(removed.output == "checks has no schema: it takes any fields, as text.\n")
        await #expect(try machine.admin(["data", "schema", "checks", "--remove"]).status == 1)
        await #expect(try machine.admin(["data", "put", "checks", "X1", "colour=red"]).status == 0)
    }

    @Test("an activation link made while nothing serves still works later: the embedded server keeps its port")
    func activationLink() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let link = try await machine.admin(["activation"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link.hasPrefix("gangway://activate?payload="))
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let result = try await machine.app([
            "link", link, "alice", "preflight-alice", "accept", "allow", passcode, passcode, "quit",
        ])
        #expect(result.output.contains("Signed in:      Alice Martin (alice)"), "\(result.output)")
    }

    @Test(
        "when another program took the embedded server's kept port, the app says so: links made for it no longer work"
    )
    func keptPortTaken() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        _ = try await machine.admin(["activation"])
        let kept = try #require(
            Int(
                try String(contentsOf: machine.directory.appending("server/port"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            )
        )
        // Another program listens there now.
        let listener = try LoopbackListener(port: kept)
        defer { listener.close() }
        let result = try await machine.app(["quit"])
        #expect(
            result.output.contains("Port \(kept), where this server listened before, is taken by another program"),
            "\(result.output)"
        )
        #expect(result.output.contains("Activation links and QR codes made for the old address no longer reach it"))
    }

    @Test("a QR code's text typed at 'Scan a QR code' onboards alice")
    func qrCodeText() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let text = try await machine.admin(["activation"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let result = try await machine.app([
            "qr", text, "alice", "preflight-alice", "accept", "allow", passcode, passcode, "quit",
        ])
        #expect(result.output.contains("QR code text, or the path of a PNG: "))
        #expect(result.output.contains("Signed in:      Alice Martin (alice)"), "\(result.output)")
        // A text whose signature does not verify is refused with what to do; cancel goes
        // back to the welcome screen, and nothing is activated.
        let other = try Machine()
        defer { other.directory.remove() }
        let forged = text.replacingOccurrences(of: "signature=", with: "signature=A")
        let refused = try await other.app(["qr", forged, "cancel"])
        #expect(refused.output.contains("The activation code is not signed by your administrator's server."))
        #expect(refused.output.contains("Ask your administrator for a new activation link or QR code."))
        #expect(refused.output.components(separatedBy: "== Welcome ==").count == 3, "\(refused.output)")
        #expect(!refused.output.contains("== Sign In =="))
        #expect(!FileManager.default.fileExists(atPath: other.directory.appending("device/configuration.json").path))
    }

    @Test(
        "the admin's QR code PNG, scanned by the device app, onboards alice",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg"),
            "needs zbar-tools (the device app reads the QR code with zbarimg)"
        )
    )
    func qrCodePNG() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let png = machine.directory.appending("activation.png")
        let made = try await machine.admin(["activation", "--png", png.path])
        #expect(made.status == 0, "\(made.standardError)")
        #expect(try Data(contentsOf: png).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let result = try await machine.app([
            "qr", png.path, "alice", "preflight-alice", "accept", "allow", passcode, passcode, "quit",
        ])
        #expect(result.output.contains("Signed in:      Alice Martin (alice)"), "\(result.output)")
    }

    @Test("a QR code PNG that cannot be written is refused, saying why, before any link is made")
    func unwritablePNG() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let missing = try await machine.admin(["activation", "--png", "/nonexistent/dir/x.png"])
        #expect(missing.status == 1)
        #expect(
            missing.standardError.contains(
                "cannot write /nonexistent/dir/x.png: there is no directory /nonexistent/dir."
            ),
            "\(missing.standardError)"
        )
        #expect(missing.output.isEmpty, "no link: \(missing.output)")
        #expect(missing.standardError.hasPrefix("gangway admin: cannot write"), "\(missing.standardError)")
        let directory = try await machine.admin(["activation", "--png", machine.directory.url.path])
        #expect(directory.status == 1 && directory.standardError.contains("it is a directory."))
        // A file there already is never replaced: it may be the admin token.
        let token = machine.directory.appending("server/admin-token")
        let before = try Data(contentsOf: token)
        let existing = try await machine.admin(["activation", "--png", token.path])
        #expect(existing.status == 1 && existing.standardError.contains("a file is there already"))
        #expect(try Data(contentsOf: token) == before, "left as it was")
    }

    @Test(
        "--server with nothing listening or no token: a clear line and exit 1; --token-file without --server: exit 64"
    )
    func remoteFailures() async throws {
        let machine = try Machine()
        defer { machine.directory.remove() }
        let tokenFile = machine.directory.appending("token")
        try Data("gw_not-the-token".utf8).write(to: tokenFile)
        chmod(tokenFile.path, 0o644)
        // A token file others can read is refused before any connection, as ssh refuses a key.
        let readable = try await machine.runner.run([
            "admin", "apps", "--server", "http://127.0.0.1:1", "--token-file", tokenFile.path,
        ])
        #expect(readable.status == 1)
        #expect(
            readable.standardError
                == "gangway admin: the token file \(tokenFile.path): others can read it (mode 0644); make it 0600 "
                + "with chmod.\n",
            "\(readable.standardError)"
        )
        chmod(tokenFile.path, 0o600)
        let nothing = try await machine.runner.run([
            "admin", "apps", "--server", "http://127.0.0.1:1", "--token-file", tokenFile.path,
        ])
        #expect(nothing.status == 1)
        #expect(nothing.standardError.contains("no server answers at http://127.0.0.1:1"))
        let noToken = try await machine.runner.run(
            ["admin", "apps", "--server", "http://127.0.0.1:1"],
            extraEnvironment: ["GANGWAY_ADMIN_TOKEN": ""]
        )
        #expect(noToken.status == 1)
        #expect(noToken.standardError.contains("--token-file"))
        let misplaced = try await machine.admin(["apps", "--token-file", tokenFile.path])
        #expect(misplaced.status == 64)
        // A token file others could have written is not trusted: refused before any connection.
        chmod(tokenFile.path, 0o666)
        let writable = try await machine.runner.run([
            "admin", "apps", "--server", "http://127.0.0.1:1", "--token-file", tokenFile.path,
        ])
        #expect(writable.status == 1)
        #expect(
            writable.standardError.contains("the token file \(tokenFile.path): others can write to it (mode 0666)"),
            "\(writable.standardError)"
        )
        // An empty one is said as such.
        chmod(tokenFile.path, 0o600)
        try Data("\n".utf8).write(to: tokenFile)
        let empty = try await machine.runner.run([
            "admin", "apps", "--server", "http://127.0.0.1:1", "--token-file", tokenFile.path,
        ])
        #expect(
            empty.standardError == "gangway admin: the token file \(tokenFile.path) is empty.\n",
            "\(empty.standardError)"
        )
        #expect(empty.status == 1)
        // A directory, or a device that never ends, is refused in one line: no crash, no endless read.
        for path in [machine.directory.url.path, "/dev/zero"] {
            let refused = try await machine.runner.run([
                "admin", "apps", "--server", "http://127.0.0.1:1", "--token-file", path,
            ])
            #expect(refused.status == 1, "\(path)")
            #expect(refused.standardError.split(separator: "\n").count == 1, "\(path): \(refused.standardError)")
            #expect(
                refused.standardError.hasPrefix("gangway admin: the token file \(path) "),
                "\(refused.standardError)"
            )
        }
    }
}

/// A separate `gangway serve`, managed with `gangway admin --server` and used by the
/// device app with `--server`.
@Suite("gangway serve, admin and the device app as three processes", .tags(.endToEnd), .skipsTags)
struct SeparateServerTests {
    @Test(
        "admin adds an app and a user to a fresh server; the device app onboards against it; a wrong token is refused"
    )
    func threeProcesses() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-three")
        defer { directory.remove() }
        let serverData = directory.appending("server")
        let serve = try await ServeProcess(in: serverData)
        defer { serve.stop() }
        let url = serve.url
        #expect(serve.printed.contains(url), "the URL file holds the address it printed")
        let runner = GangwayProcess(deviceKeys: directory.appending("unused-keys"))
        let token = serve.tokenFile
        func admin(_ arguments: [String], lines: [String] = []) async throws -> GangwayProcess.Result {
            try await runner.run(["admin"] + arguments + ["--server", url, "--token-file", token], lines: lines)
        }
        await #expect(try admin(["apps"]).output.contains("No apps."))
        let app = try await admin(["apps", "add", "tools", "--name", "Tool Crib", "--email-domain", "hangar.example"])
        #expect(app.status == 0, "\(app.standardError)")
        await #expect(
            try admin(["users", "add", "erin", "--name", "Erin Holt"], lines: ["erin-torque-wrench"]).status == 0
        )
        let typo = try await admin(["data", "put", "cheks", "D-AIBL-tyres", "status=open"])
        #expect(typo.status == 1)
        #expect(typo.standardError.contains("has no entity set 'cheks'; nothing was put. Give --new-set to start it."))
        let check = try await admin([
            "data", "put", "checks", "D-AIBL-tyres", "aircraft=A319 D-AIBL", "stand=3", "item=tyre pressure",
            "status=open", "--new-set",
        ])
        #expect(check.status == 0, "\(check.standardError)")
        #expect(check.output.contains("checks/D-AIBL-tyres is at version 1"))

        let wrong = directory.appending("wrong-token")
        try Data("gw_wrong".utf8).write(to: wrong)
        chmod(wrong.path, 0o600)
        let refused = try await runner.run(["admin", "users", "--server", url, "--token-file", wrong.path])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("could not prove it holds this admin token"), "\(refused.standardError)")
        #expect(refused.standardError.contains("the token was not sent"))

        let passcode = DeviceAppEndToEndTests.alicePasscode
        let device = try await runner.run(
            ["--server", url, "--data-dir", directory.appending("device-home").path],
            lines: [
                "email", "erin@hangar.example", "erin", "erin-torque-wrench", "accept", "allow", passcode, passcode,
                "quit",
            ]
        )
        #expect(device.status == 0, "\(device.standardError)")
        #expect(device.output.contains("== Tool Crib =="), "\(device.output)")
        #expect(device.output.contains("Signed in:      Erin Holt (erin)"))
        #expect(device.output.contains("Checks:         1 check from the server (read-only)"))
        #expect(device.output.contains("A319 D-AIBL   stand 3    tyre pressure    open"))
        let devices = try await admin(["devices"])
        #expect(devices.output.contains("erin"))
        #expect(devices.output.contains("active"))

        // With the server stopped, the local admin opens its database for the command, and
        // does not put the demo's users (whose passwords are public) into it.
        serve.stop()
        // Offline, the app shows the checks it kept at its last read, and says why.
        let offline = try await runner.run(
            ["--server", url, "--data-dir", directory.appending("device-home").path],
            lines: ["1", passcode, "quit"]
        )
        #expect(offline.status == 0, "\(offline.standardError)")
        #expect(offline.output.contains("Checks:         1 check kept from "), "\(offline.output)")
        #expect(offline.output.contains("not refreshed: The server at \(url) cannot be reached."), "\(offline.output)")
        #expect(offline.output.contains("A319 D-AIBL   stand 3    tyre pressure    open"))
        let local = try await runner.run(["admin", "users", "--data-dir", directory.url.path, "--bcrypt-cost", "4"])
        #expect(local.status == 0, "\(local.standardError)")
        #expect(local.output.contains("erin  Erin Holt"))
        #expect(!local.output.contains("alice"))
        await #expect(try runner.run(["admin", "apps", "--data-dir", directory.url.path]).output.contains("tools"))
    }

    @Test(
        "--server naming the same server at a new address moves the device there; another server, or a path, is refused"
    )
    func serverMoved() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-moved")
        defer { directory.remove() }
        let serve = try await ServeProcess(in: directory.appending("server"))
        defer { serve.stop() }
        let runner = GangwayProcess(deviceKeys: directory.appending("unused-keys"))
        func admin(_ arguments: [String], lines: [String] = []) async throws -> GangwayProcess.Result {
            try await runner.run(
                ["admin"] + arguments + ["--server", serve.url, "--token-file", serve.tokenFile],
                lines: lines
            )
        }
        await #expect(
            try admin(["apps", "add", "tools", "--name", "Tool Crib", "--email-domain", "hangar.example"]).status == 0
        )
        await #expect(
            try admin(["users", "add", "erin", "--name", "Erin Holt"], lines: ["erin-torque-wrench"]).status == 0
        )
        let home = directory.appending("device-home")
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let onboarded = try await runner.run(
            ["--server", serve.url, "--data-dir", home.path],
            lines: [
                "email", "erin@hangar.example", "erin", "erin-torque-wrench", "accept", "allow", passcode, passcode,
            ]
                + ["quit"]
        )
        #expect(onboarded.status == 0, "\(onboarded.standardError)")

        // The device last knew the server at an address where nothing answers now.
        let file = home.appendingPathComponent("device/configuration.json")
        func savedURL() throws -> String? {
            try (JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])?["serverURL"] as? String
        }
        var saved = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        saved["serverURL"] = "http://127.0.0.1:1"
        try JSONSerialization.data(withJSONObject: saved).write(to: file)
        chmod(file.path, 0o600)
        let moved = try await runner.run(
            ["--server", serve.url, "--data-dir", home.path],
            lines: ["1", passcode, "quit"]
        )
        #expect(moved.status == 0, "\(moved.standardError)")
        #expect(
            moved.output.contains("The server moved from http://127.0.0.1:1 (it shows the activation key"),
            "\(moved.output)"
        )
        #expect(moved.output.contains("Signed in:      Erin Holt (erin)"))
        #expect(!moved.output.contains("cannot be reached"), "\(moved.output)")
        #expect(try savedURL() == serve.url)

        // Another server, with a key of its own, gets nothing of the device's.
        let other = try await ServeProcess(in: directory.appending("other-server"))
        defer { other.stop() }
        let refused = try await runner.run(
            ["--server", other.url, "--data-dir", home.path],
            lines: ["1", passcode, "quit"]
        )
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                "this device was activated against \(serve.url), and the server at \(other.url) is another one"
            ),
            "\(refused.standardError)"
        )
        #expect(try savedURL() == serve.url)
        let otherLog = try await other.stopAndReadLog()
        #expect(!otherLog.contains("/apps/tools"), "nothing was sent to the other server")

        // A path after the server's address: said to be no Gangway server's base address.
        let fresh = directory.appending("fresh-home")
        let pathed = try await runner.run(["--server", serve.url + "/api", "--data-dir", fresh.path], lines: [])
        #expect(pathed.status == 1)
        #expect(
            pathed.standardError.contains(
                "no Gangway server answers at \(serve.url)/api: give its base address, such as http://127.0.0.1:8080"
            ),
            "\(pathed.standardError)"
        )
    }
}

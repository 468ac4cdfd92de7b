import Foundation
import GangwayTesting
import Testing

/// The device app on a pseudo-terminal while `gangway admin` changes the server under it:
/// what the admin decides reaches the running app at its next server contact.
@Suite("gangway admin changes reach a running device app", .serialized, .tags(.endToEnd), .skipsTags)
struct AdminStoriesOnTerminalTests {
    static let passcode = DeviceAppEndToEndTests.alicePasscode

    /// Starts the app on a terminal and onboards alice to the home prompt.
    static func aliceAtHome(in directory: TemporaryDirectory) throws -> PseudoTerminalSession {
        let terminal = try PseudoTerminalSession(
            arguments: ["--data-dir", directory.url.path, "--bcrypt-cost", "4"],
            environment: ["GANGWAY_KDF_ROUNDS": "1000"]
        )
        for (prompt, answer) in [
            ("Choose [1-4]: ", "email"), ("Work email: ", "alice@airline.example"),
            ("User name (empty to cancel): ", "alice"), ("Password: ", "preflight-alice"),
            ("Choose [1-2]: ", "accept"), ("Choose [1-2]: ", "allow"),
            ("Choose a passcode", passcode), ("Enter the passcode again", passcode),
        ] {
            #expect(terminal.next(prompt), "no prompt \(prompt)")
            terminal.type(answer)
        }
        #expect(terminal.next("gangway> "))
        return terminal
    }

    @Test(
        "at the home prompt the arrows edit the line and Up brings back a command typed before; what named none is not kept"
    )
    func lineEditing() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-line-editing")
        defer { directory.remove() }
        let terminal = try Self.aliceAtHome(in: directory)
        // Something that names no command (a passcode typed at the wrong prompt): never kept.
        terminal.type("not-a-command-secret")
        #expect(terminal.next("That is not a command"))
        #expect(terminal.next("gangway> "))
        terminal.type("wait 10")
        #expect(terminal.next("gangway> "))
        // Up brings back `wait 10`, not the secret; Left, and a digit before the 0: `wait 150`.
        terminal.type("\u{1B}[A\u{1B}[D5")
        #expect(terminal.next("(150 s pass)"), "the line was edited: \(terminal.screen.suffix(400))")
        #expect(terminal.next("gangway> "))
        // Up twice: the newest first, then the one before it; Ctrl-U clears; a near miss.
        terminal.type("\u{1B}[A\u{1B}[A\u{15}stauts")
        #expect(terminal.next("did you mean 'status'?"))
        // Up past the oldest kept line stays there: `wait 10`, never the line before it.
        terminal.type("\u{1B}[A\u{1B}[A\u{1B}[A\u{1B}[A")
        #expect(terminal.next("(10 s pass)"), "\(terminal.screen.suffix(400))")
        terminal.type("quit")
        #expect(terminal.finish() == 0)
    }

    static func admin(_ arguments: [String], in directory: TemporaryDirectory) async throws -> GangwayProcess.Result {
        try await GangwayProcess(deviceKeys: directory.appending("unused-keys"))
            .run(["admin"] + arguments + ["--data-dir", directory.url.path])
    }

    @Test("the admin tightens the policy: at the next unlock, however soon, alice is told why and changes her passcode")
    func tightenedPolicy() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-admin-tty")
        defer { directory.remove() }
        let terminal = try Self.aliceAtHome(in: directory)
        // The app's server is serving: the admin command talks to it.
        let changed = try await Self.admin(["policy", "--min-length", "18", "--require-digit", "true"], in: directory)
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(changed.output.contains("at least 18 characters, at least one digit"))
        #expect(FileManager.default.fileExists(atPath: directory.appending("server/url").path))

        let newPasscode = "Night-Shift-9753-xy"
        terminal.type("lock")
        #expect(terminal.next("Locked."))
        terminal.type("resume")  // no time passed: within the lock timeout
        #expect(terminal.next("Enter your passcode (empty for more choices): "))
        terminal.type(Self.passcode)
        #expect(terminal.next("Your passcode must change"))
        #expect(terminal.next("Press Enter to continue"))
        terminal.type("")
        // The passcode just typed to unlock is not asked again.
        #expect(terminal.next("Choose a new passcode"))
        terminal.type(newPasscode)
        #expect(terminal.next("Enter the new passcode again"))
        terminal.type(newPasscode)
        #expect(terminal.next("Unlocked."))
        #expect(!terminal.screen.contains("Enter your current passcode"))
        #expect(terminal.next("at least 18 characters, at least one digit"), "the home screen shows the new policy")
        #expect(terminal.next("gangway> "))
        terminal.type("quit")
        #expect(terminal.finish() == 0)
        #expect(!terminal.screen.contains(newPasscode))
        #expect(!terminal.screen.contains(Self.passcode))

        // The next launch takes the new passcode.
        let relaunch = try await GangwayProcess(deviceKeys: directory.appending("unused-keys"))
            .run(["--data-dir", directory.url.path, "--bcrypt-cost", "4"], lines: ["1", newPasscode, "quit"])
        #expect(relaunch.output.contains("Signed in:      Alice Martin (alice)"), "\(relaunch.output)")
    }

    @Test(
        "the admin sets a new licence agreement version: the next unlock asks it before the data; declining closes the session and keeps the data"
    )
    func newAgreementVersion() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-admin-tty")
        defer { directory.remove() }
        let terminal = try Self.aliceAtHome(in: directory)
        // A version the server would refuse changes nothing, and says why, by its option.
        let refused = try await Self.admin(
            ["agreements", "--eula-version", String(repeating: "9", count: 65)],
            in: directory
        )
        #expect(refused.status == 64)
        #expect(refused.standardError.contains("--eula-version must be at most 64"), "\(refused.standardError)")
        let unchanged = try await Self.admin(["agreements"], in: directory)
        #expect(unchanged.output.contains("licence agreement: the app's own"))
        let changed = try await Self.admin(["agreements", "--eula-version", "2027.01"], in: directory)
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(changed.output.contains("Agreements:      licence agreement 2027.01; consent: the app's own"))

        terminal.type("lock")
        #expect(terminal.next("Locked."))
        terminal.type("wait 301")
        terminal.type("resume")
        #expect(terminal.next("Enter your passcode (empty for more choices): "))
        terminal.type(Self.passcode)
        #expect(terminal.next("Licence Agreement (version 2027.01)"))
        #expect(terminal.next("Choose [1-2]: "))
        terminal.type("decline")
        #expect(terminal.next("Session closed: the licence agreement was declined."))
        // Back to the user picker: alice's data stays, and the agreement is asked again.
        #expect(terminal.next("Choose [1-2]: "))
        terminal.type("1")
        #expect(terminal.next("Enter your passcode (empty for more choices): "))
        terminal.type(Self.passcode)
        #expect(terminal.next("Licence Agreement (version 2027.01)"))
        #expect(terminal.next("Choose [1-2]: "))
        terminal.type("accept")
        #expect(terminal.next("Signed in:      Alice Martin (alice)"))
        #expect(terminal.next("gangway> "))
        terminal.type("quit")
        #expect(terminal.finish() == 0)
        #expect(!terminal.screen.contains(Self.passcode))
    }

    @Test(
        "the admin wipes the device: when the app next reaches the server, alice's data is erased and the welcome screen shows"
    )
    func wipedDevice() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-admin-tty")
        defer { directory.remove() }
        let terminal = try Self.aliceAtHome(in: directory)
        let listed = try await Self.admin(["devices"], in: directory)
        #expect(listed.output.contains("alice"))
        #expect(listed.output.contains("active"))
        let wiped = try await Self.admin(["devices", "wipe", "alice"], in: directory)
        #expect(wiped.status == 0, "\(wiped.standardError)")
        #expect(wiped.output.contains("is wiped"))

        terminal.type("lock")
        #expect(terminal.next("Your administrator erased this user's data on this device."))
        // The device stays activated: its welcome screen offers the sign-in straight away.
        #expect(terminal.next("Welcome"))
        #expect(terminal.next("Sign In"))
        #expect(terminal.next("Choose [1-2]: "))
        let stores =
            (try? FileManager.default.contentsOfDirectory(atPath: directory.appending("device/stores").path)) ?? []
        #expect(stores.filter { UUID(uuidString: $0) != nil }.isEmpty, "alice's store is gone")
        await #expect(try Self.admin(["devices"], in: directory).output.contains("wiped"))
        _ = terminal.finish(timeout: .seconds(1))
    }

    @Test("the admin changes a check: the running app's next home screen shows it")
    func changedCheck() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-admin-tty")
        defer { directory.remove() }
        let terminal = try Self.aliceAtHome(in: directory)
        #expect(terminal.screen.contains("5 checks from the server"))
        #expect(terminal.screen.contains("A321 F-GTAJ   stand 14   fuel level       open"))
        let changed = try await Self.admin(
            [
                "data", "put", "checks", "F-GTAJ-fuel", "aircraft=A321 F-GTAJ", "stand=14", "item=fuel level",
                "status=done", "reading=6400 kg",
            ],
            in: directory
        )
        #expect(changed.status == 0, "\(changed.standardError)")
        #expect(changed.output.contains("checks/F-GTAJ-fuel is at version 2"))
        let removed = try await Self.admin(["data", "delete", "checks", "F-GKXA-walkaround"], in: directory)
        #expect(removed.status == 0, "\(removed.standardError)")

        terminal.type("home")
        #expect(terminal.next("4 checks from the server"))
        #expect(terminal.next("A321 F-GTAJ   stand 14   fuel level       done  6400 kg"))
        #expect(terminal.next("gangway> "))
        terminal.type("quit")
        #expect(terminal.finish() == 0)
        let listed = try await Self.admin(["data"], in: directory)
        #expect(!listed.output.contains("F-GKXA-walkaround"))
        #expect(listed.output.contains("F-GTAJ-fuel   2  "))
    }

    @Test(
        "the admin locks the device: when the app next reaches the server its session ends; once unlocked, alice signs in again and keeps her data"
    )
    func lockedDevice() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-admin-tty")
        defer { directory.remove() }
        let terminal = try Self.aliceAtHome(in: directory)
        let locked = try await Self.admin(["devices", "lock", "alice"], in: directory)
        #expect(locked.status == 0, "\(locked.standardError)")

        terminal.type("lock")
        #expect(terminal.next("Your administrator locked this device."))
        #expect(terminal.next("The session is closed; sign in again to go on."))
        #expect(terminal.next("Choose [1-2]: "), "the user picker")
        terminal.type("1")
        #expect(terminal.next("Enter your passcode"))
        terminal.type(Self.passcode)
        #expect(terminal.next("User name (empty to cancel): "))
        terminal.type("alice")
        #expect(terminal.next("Password: "))
        terminal.type("preflight-alice")
        // The lock holds: the sign-in on this device is refused, and says what to do.
        #expect(terminal.next("Ask them to unlock it, then sign in again."))
        #expect(terminal.next("User name [alice]: "))
        let unlocked = try await Self.admin(["devices", "unlock", "alice"], in: directory)
        #expect(unlocked.status == 0, "\(unlocked.standardError)")
        terminal.type("")
        #expect(terminal.next("Password (empty to cancel): "))
        terminal.type("preflight-alice")
        #expect(terminal.next("Signed in:      Alice Martin (alice)"))
        #expect(terminal.next("gangway> "))
        terminal.type("quit")
        #expect(terminal.finish() == 0)
        #expect(!terminal.screen.contains(Self.passcode))
        await #expect(try Self.admin(["devices"], in: directory).output.contains("active"))
    }
}

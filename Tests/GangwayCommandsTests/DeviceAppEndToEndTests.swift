import Foundation
import GangwaySystem
import GangwayTesting
import Testing

/// The device app (`gangway` with no subcommand) run as a process against its embedded
/// server, answered line by line through a pipe as a script would.
@Suite("gangway, the device app: stories played through a pipe", .serialized, .tags(.endToEnd), .skipsTags)
struct DeviceAppEndToEndTests {
    static let alicePasscode = "Fuel-Check-2468"
    static let bobPasscode = "Tyre-Gauge-1357"

    /// One device's data directory, launched as often as a story needs.
    struct Device {
        let directory: TemporaryDirectory

        init() throws { directory = try TemporaryDirectory(prefix: "gangway-app") }

        func launch(_ lines: [String], arguments: [String] = []) async throws -> GangwayProcess.Result {
            let process = GangwayProcess(deviceKeys: directory.appending("unused-keys"))
            return try await process.run(
                ["--data-dir", directory.url.path, "--bcrypt-cost", "4"] + arguments,
                lines: lines
            )
        }

        var storesDirectory: URL { directory.appending("device/stores") }

        /// The user stores on the device.
        func storeCount() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: storesDirectory.path)) ?? []
            return names.filter { UUID(uuidString: $0) != nil }.count
        }
    }

    /// Onboards alice by her work email: welcome, sign-in, a passcode the policy refuses,
    /// then one it accepts, twice.
    static let aliceOnboards = [
        "email", "alice@airline.example", "alice", "preflight-alice", "accept", "allow", "short",
        alicePasscode, alicePasscode,
    ]

    @Test("first launch: welcome, activation by email, sign-in, the policy's checklist, home; no passcode shows")
    func firstLaunch() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(Self.aliceOnboards + ["quit"])
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        for expected in [
            "Demo users (user / password): alice / preflight-alice, bob / preflight-bob",
            "== Welcome ==", "Activate with work email", "== Sign In ==", "== Create Passcode ==",
            "[ ] at least 8 characters", "! The passcode does not meet every rule.",
            "Enter the passcode again", "== Aircraft Ground Checks ==", "Signed in:      Alice Martin (alice)",
            "== Licence Agreement (version 2026.11) ==", "== Usage reports ==",
            "locks after 300 s away", "Checks:         5 checks from the server\n",
            "A320 F-GKXA   stand 12   fuel level       done  8200 kg",
        ] {
            #expect(output.contains(expected), "missing: \(expected)")
        }
        #expect(!output.contains(Self.alicePasscode))
        #expect(!output.contains("short\n"))
        #expect(!output.contains("\u{1B}["), "plain output has no escape codes")
        #expect(!output.contains("⋯"), "no progress lines in a transcript")
        #expect(!result.standardError.contains(Self.alicePasscode))
        #expect(device.storeCount() == 1)
    }

    @Test("after the first launch every directory the app made is 0700 and every file in it 0600")
    func privateFiles() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(Self.aliceOnboards + ["quit"])
        #expect(result.status == 0, "\(result.standardError)")
        var checked = 0
        for top in ["device", "server"] {
            let root = device.directory.appending(top)
            #expect(PrivateFiles.mode(of: root.path) == 0o700, "\(top)")
            let walker = FileManager.default.enumerator(atPath: root.path)
            while let relative = walker?.nextObject() as? String {
                let path = root.appendingPathComponent(relative).path
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                #expect(PrivateFiles.mode(of: path) == (isDirectory.boolValue ? 0o700 : 0o600), "\(top)/\(relative)")
                checked += 1
            }
        }
        // The admin token, the server's database, the device's configuration and store.
        #expect(checked >= 6)
    }

    @Test("quit and relaunch: the user picker, then the passcode restores the session")
    func relaunch() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        _ = try await device.launch(Self.aliceOnboards + ["quit"])
        let result = try await device.launch(["1", Self.alicePasscode, "home", "quit"])
        #expect(result.status == 0)
        let output = result.output
        #expect(output.contains("== Who is using the device? =="))
        #expect(output.contains("== Enter Passcode =="))
        #expect(output.contains("Signed in:      Alice Martin (alice)"))
        #expect(!output.contains("== Welcome =="))
        #expect(!output.contains(Self.alicePasscode))
    }

    @Test("'quit' at the passcode asks whether to leave: yes leaves without a wrong try, no tries it as the passcode")
    func quitAtThePasscode() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        _ = try await device.launch(Self.aliceOnboards + ["quit"])
        let left = try await device.launch(["1", "quit", "y"])
        #expect(left.status == 0, "\(left.standardError)")
        #expect(left.output.contains("Leave the app? (n: use what you typed) [y/n]:"), "\(left.output)")
        #expect(!left.output.contains("Tries left"), "leaving is no wrong try: \(left.output)")
        // The input ending at the question is a quit too.
        let ended = try await device.launch(["1", "quit"])
        #expect(ended.status == 0, "\(ended.standardError)")
        #expect(!ended.output.contains("Tries left"), "\(ended.output)")
        // Nothing was counted: the next wrong passcode leaves nine tries.
        let tried = try await device.launch(["1", "quit", "n", Self.alicePasscode, "home", "quit"])
        #expect(tried.output.contains("Tries left: 9"), "'quit' kept as the passcode is a wrong try: \(tried.output)")
        #expect(tried.output.contains("Signed in:      Alice Martin (alice)"))
        let again = try await device.launch(["1", "Wrong-Guess", Self.alicePasscode, "quit"])
        #expect(again.output.contains("Tries left: 9"), "the right passcode started the count again: \(again.output)")
    }

    @Test("ten wrong passcodes erase the user's store; the app starts over at the welcome screen")
    func wrongPasscodesErase() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        _ = try await device.launch(Self.aliceOnboards + ["quit"])
        #expect(device.storeCount() == 1)
        let wrong = (1...10).map { "Wrong-Guess-\($0)" }
        let result = try await device.launch(["1"] + wrong + ["quit"])
        let output = result.output
        #expect(output.contains("Tries left: 9"))
        #expect(output.contains("One try left. Another wrong passcode erases this user's data."))
        #expect(output.contains("== Welcome =="), "after the erase, onboarding starts again")
        #expect(device.storeCount() == 0)
    }

    @Test("on a shared device the ten wrong passcodes erase that user only; the picker shows the others, no quit")
    func wrongPasscodesEraseOneOfTwo() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        _ = try await device.launch(
            Self.aliceOnboards + [
                "add", "1", "bob", "preflight-bob", "accept", "decline", Self.bobPasscode, Self.bobPasscode, "quit",
            ]
        )
        #expect(device.storeCount() == 2)
        let wrong = (1...10).map { "Wrong-Guess-\($0)" }
        let result = try await device.launch(["Bob Okafor"] + wrong + ["Alice Martin", Self.alicePasscode, "quit"])
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        #expect(output.components(separatedBy: "== Who is using the device? ==").count == 3, "\(output)")
        #expect(!output.contains("== Welcome =="), "alice is still on the device")
        #expect(output.contains("Signed in:      Alice Martin (alice)"))
        let erased = try #require(output.range(of: "This user's data was erased from the device"), "\(output)")
        let picker = output[erased.upperBound...]
        #expect(picker.contains("1) Alice Martin") && !picker.contains("Bob Okafor"), "\(picker)")
        #expect(device.storeCount() == 1)
    }

    @Test("lock and resume: no passcode within the lock timeout, the passcode past it")
    func lockAndResume() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + [
                "lock", "wait 299", "resume", "lock", "wait 301", "resume", "Wrong-Guess-1", Self.alicePasscode, "quit",
            ]
        )
        let output = result.output
        let resumed = try #require(output.range(of: "Resumed within the lock timeout: no passcode needed."))
        let asked = try #require(output.range(of: "== Enter Passcode =="))
        #expect(resumed.upperBound < asked.lowerBound, "the first resume asks nothing; the second asks")
        #expect(output.contains("(the app is in the background: its screens are hidden)"))
        #expect(output.contains("Wrong passcode. Tries left: 9"))
        #expect(output.contains("Unlocked."))
    }

    @Test(
        "a locked app reads, changes and ends nothing of the user's before resume and the passcode, however long it waits"
    )
    func lockedAppRefusesCommands() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let refused = [
            "home", "edit F-GKXA-walkaround \"note=written while locked\"", "crew note from an intruder", "crew",
            "pending", "sync", "passcode", "reports on", "biometrics on", "logout server", "logout", "remove", "switch",
            "add",
        ]
        let result = try await device.launch(
            Self.aliceOnboards + ["lock", "wait 2h"] + refused + ["resume", Self.alicePasscode, "pending", "quit"]
        )
        #expect(result.status == 0)
        let output = result.output
        let locked = try #require(output.range(of: "Locked. Type 'resume' to come back."))
        let unlocked = try #require(output.range(of: "Unlocked."))
        let whileLocked = output[locked.upperBound..<unlocked.lowerBound]
        #expect(
            whileLocked.components(separatedBy: "Locked: type 'resume' to unlock first.").count == refused.count + 1,
            "\(whileLocked)"
        )
        for leak in [
            "== Aircraft Ground Checks", "saved on this device", "Noted, as you", "Signed out", "was removed",
            "Remove this user", "== Sign In", "== Who is using", "== Welcome", "== Change Passcode",
        ] {
            #expect(!whileLocked.contains(leak), "\(leak) while locked")
        }
        #expect(device.storeCount() == 1, "the user and their data stay")
        #expect(
            output[unlocked.upperBound...].contains("No changes of yours wait or need a look."),
            "nothing was recorded while locked"
        )
    }

    @Test("wait takes up to a hundred years; a longer one, in any unit, is no duration (never an overflow)")
    func longWait() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + ["wait 9223372036854775807h", "wait 999999999999999999m", "wait 36500d", "quit"]
        )
        #expect(result.status == 0)
        #expect(result.output.components(separatedBy: "Say how long: wait 30, wait 5m, wait 2h.").count == 3)
        #expect(result.output.contains("(3153600000 s pass)"), "\(result.output.suffix(400))")
    }

    @Test("a first launch stopped (Ctrl-C) while the demo is seeded: the next launch finishes the seed and onboards")
    func seedInterrupted() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        // A slow bcrypt makes the seed of each demo user take long enough to stop it in the middle.
        let process = GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
        let first = try process.launch(
            ["--data-dir", device.directory.url.path, "--bcrypt-cost", "13"],
            lines: [],
            keepInputOpen: true
        )
        // The port is written just before the seed starts.
        let port = device.directory.appending("server/port")
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: port.path), Date() < deadline, first.isRunning {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(FileManager.default.fileExists(atPath: port.path))
        kill(first.processIdentifier, SIGINT)
        try await first.exit()
        #expect(first.terminationStatus == 130)
        let marker = try String(contentsOf: device.directory.appending("server/demo"), encoding: .utf8)
        #expect(marker.contains("not all there yet"), "stopped before the seed finished: \(marker)")

        let again = try await device.launch(Self.aliceOnboards + ["quit"])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.output.contains("Demo users (user / password): alice / preflight-alice"))
        #expect(!again.output.contains("was not made by gangway's demo"))
        #expect(again.output.contains("Signed in:      Alice Martin (alice)"), "\(again.output)")
        let seeded = try String(contentsOf: device.directory.appending("server/demo"), encoding: .utf8)
        #expect(seeded == "Seeded with the demo app and users by gangway.\n")
    }

    @Test("a second user is added and the device switches between the two, each with their passcode")
    func secondUser() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + [
                "add", "1", "bob", "preflight-bob", "accept", "decline", Self.bobPasscode, Self.bobPasscode,
                "switch", "Alice Martin", Self.alicePasscode,
                "switch", "Bob Okafor", Self.bobPasscode, "quit",
            ]
        )
        let output = result.output
        #expect(output.contains("Signed in:      Bob Okafor (bob)"))
        #expect(output.contains("On this device: Alice Martin, Bob Okafor"))
        let homes = output.components(separatedBy: "Signed in:      ").dropFirst().map { $0.prefix(5) }
        #expect(homes == ["Alice", "Bob O", "Alice", "Bob O"])
        #expect(device.storeCount() == 2)
        #expect(!output.contains(Self.bobPasscode) && !output.contains(Self.alicePasscode))
    }

    @Test("at the lock screen the next person switches user without quitting: the picker, their own passcode")
    func switchAtTheLockScreen() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + [
                "add", "1", "bob", "preflight-bob", "accept", "decline", Self.bobPasscode, Self.bobPasscode,
                "lock", "wait 301", "resume", "", "switch", "Alice Martin", Self.alicePasscode, "quit",
            ]
        )
        #expect(result.status == 0)
        let output = result.output
        let hidden = try #require(output.range(of: "(the app is in the background"))
        let after = output[hidden.upperBound...]
        #expect(after.contains("== Enter Passcode =="))
        #expect(after.contains("Switch User") && after.contains("Add User"))
        let homes = output.components(separatedBy: "Signed in:      ").dropFirst().map { $0.prefix(5) }
        #expect(homes == ["Alice", "Bob O", "Alice"])
        #expect(!output.contains(Self.bobPasscode) && !output.contains(Self.alicePasscode))
    }

    @Test("adding yourself again offers your own user, unlocked with your passcode; no ID is shown")
    func addingYourselfAgain() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + ["add", "1", "alice", "preflight-alice", "unlock", Self.alicePasscode, "quit"]
        )
        #expect(result.status == 0)
        let output = result.output
        #expect(output.contains("== Already on This Device =="))
        #expect(output.contains("Alice Martin already has a user on this device, with their own passcode and data."))
        #expect(output.contains("Unlock as Alice Martin"))
        // The screen names the person, never an ID (the home screen after it shows the
        // registration, as every home screen does).
        let screen = try #require(output.range(of: "== Already on This Device =="))
        let screenText = output[screen.upperBound...].prefix { $0 != "=" }
        #expect(screenText.contains("Unlock as Alice Martin"))
        #expect(screenText.firstMatch(of: /[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-/) == nil, "no ID")
        #expect(output.components(separatedBy: "Signed in:      Alice Martin (alice)").count == 3)
        #expect(device.storeCount() == 1)
        #expect(!output.contains(Self.alicePasscode))
    }

    /// Debian's `faketime`, which runs a program with its wall clock moved; `nil` when it
    /// is not installed.
    static let faketime = ExternalTool("faketime").executable

    /// The shipped `gangway`, with no test hook, run `offset` later (`+31d`) by `faketime`.
    static func later(_ offset: String, in device: Device, lines: [String]) async throws -> GangwayProcess.Result {
        var process = GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
        process.executable = URL(fileURLWithPath: try #require(faketime))
        return try await process.run(
            ["-f", offset, GangwayProcess.shippedExecutable.path, "--data-dir", device.directory.url.path]
                + ["--bcrypt-cost", "4"],
            lines: lines
        )
    }

    @Test(
        "31 days later, under a 30-day expiry: the app says the passcode expired and takes a new one, not the old",
        .enabled(if: faketime != nil, "needs Debian's faketime")
    )
    func expiredPasscode() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        _ = try await device.launch(Self.aliceOnboards + ["quit"])
        let admin = try await GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
            .run(["admin", "policy", "--expires-days", "30", "--data-dir", device.directory.url.path])
        #expect(admin.status == 0, "\(admin.standardError)")

        // A month on, the server's session has ended too: alice signs in again.
        let newPasscode = "Night-Shift-9753"
        let result = try await Self.later(
            "+31d",
            in: device,
            lines: [
                "1", Self.alicePasscode, "alice", "preflight-alice", "", Self.alicePasscode, newPasscode, newPasscode,
                "quit",
            ]
        )
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        let expired = try #require(output.range(of: "== Passcode Expired =="), "\(output)")
        let after = output[expired.upperBound...]
        #expect(after.contains("Your organisation asks for a new passcode every 30 days."))
        #expect(after.contains("You have used this passcode before. Choose another one."))
        #expect(after.contains("Signed in:      Alice Martin (alice)"))
        #expect(after.contains("expires after 30 days"))
        #expect(!output.contains(Self.alicePasscode) && !output.contains(newPasscode))

        // The next launch takes the new passcode and asks nothing more.
        let next = try await Self.later("+31d", in: device, lines: ["1", newPasscode, "quit"])
        #expect(next.output.contains("Signed in:      Alice Martin (alice)"), "\(next.output)")
        #expect(!next.output.contains("== Passcode Expired =="))
    }

    @Test(
        "the admin lets people skip the passcode: the app announces it, the next person onboarding skips it, and a relaunch asks nothing"
    )
    func skippingThePasscode() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let personal = ["--personal-device"]
        _ = try await device.launch(Self.aliceOnboards + ["quit"], arguments: personal)
        let admin = try await GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
            .run(["admin", "policy", "--allow-skip", "true", "--data-dir", device.directory.url.path])
        #expect(admin.status == 0, "\(admin.standardError)")
        #expect(admin.output.contains("may be skipped"))

        // Alice's next launch announces it; she leaves the device and Bob onboards, skipping.
        let result = try await device.launch(
            [Self.alicePasscode, "", "remove", "y", "1", "bob", "preflight-bob", "accept", "decline", "", "quit"],
            arguments: personal
        )
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        #expect(output.contains("== Passcode Policy Changed =="), "\(output)")
        #expect(output.contains("The passcode is now optional"))
        let create = try #require(output.range(of: "Choose a passcode (empty to skip)"), "\(output)")
        let afterSkip = output[create.upperBound...]
        #expect(afterSkip.contains("Signed in:      Bob Okafor (bob)"))
        #expect(afterSkip.contains("Passcode:       none"))

        // Bob's relaunch opens his data without any passcode screen.
        let relaunch = try await device.launch(["quit"], arguments: personal)
        #expect(!relaunch.output.contains("== Enter Passcode =="))
        #expect(relaunch.output.contains("Signed in:      Bob Okafor (bob)"), "\(relaunch.output)")
    }

    @Test(
        "--terms links legal texts on the welcome screen: the box must be ticked, and the home screen shows what was accepted"
    )
    func legalTexts() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let terms = [
            "--terms", "Terms of Use@2026.11=https://airline.example/terms",
            "--terms", "Privacy Notice@3=https://airline.example/privacy",
        ]
        let result = try await device.launch(["n", "y"] + Self.aliceOnboards + ["quit"], arguments: terms)
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        #expect(output.contains("  Terms of Use (version 2026.11): https://airline.example/terms"))
        #expect(output.contains("  Privacy Notice (version 3): https://airline.example/privacy"))
        #expect(output.components(separatedBy: "I accept the terms? [y/n]: ").count == 3, "asked until ticked")
        #expect(output.contains("Terms accepted: Terms of Use 2026.11, Privacy Notice 3, "))

        let relaunch = try await device.launch(["1", Self.alicePasscode, "quit"], arguments: terms)
        #expect(!relaunch.output.contains("I accept the terms?"), "accepted once, at onboarding")
        #expect(relaunch.output.contains("Terms accepted: Terms of Use 2026.11, Privacy Notice 3, "))

        for bad in [
            "Terms of Use=https://airline.example/terms", "Terms@1=ftp://airline.example", "@1=https://a.example",
        ] {
            let refused = try await device.launch(["quit"], arguments: ["--terms", bad])
            #expect(refused.status == 64, "\(bad)")
            #expect(refused.standardError.contains("is not TITLE@VERSION=URL"), "\(bad)")
        }
    }

    /// The headings in `output` that start with one of `names`, in order.
    static func headings(_ output: String, among names: [String]) -> [String] {
        output.components(separatedBy: "\n").compactMap { line in
            names.first { line.hasPrefix("== \($0)") }
        }
    }

    @Test("the onboarding order: agreements before the passcode by default, after it with --agreements-after-passcode")
    func onboardingOrder() async throws {
        let names = ["Sign In", "Licence Agreement", "Usage reports", "Create Passcode"]
        let standard = try Device()
        defer { standard.directory.remove() }
        let before = try await standard.launch(Self.aliceOnboards + ["quit"])
        #expect(Self.headings(before.output, among: names) == names + ["Create Passcode"], "the refused 'short'")

        let guideline = try Device()
        defer { guideline.directory.remove() }
        let after = try await guideline.launch(
            ["email", "alice@airline.example", "alice", "preflight-alice", Self.alicePasscode, Self.alicePasscode]
                + ["accept", "allow", "quit"],
            arguments: ["--agreements-after-passcode"]
        )
        #expect(after.status == 0, "\(after.standardError)")
        #expect(
            Self.headings(after.output, among: names)
                == ["Sign In", "Create Passcode", "Licence Agreement", "Usage reports"]
        )
        #expect(after.output.contains("Signed in:      Alice Martin (alice)"))

        // Declining there rolls the onboarding back, the new store with it.
        let declining = try Device()
        defer { declining.directory.remove() }
        let declined = try await declining.launch(
            ["email", "alice@airline.example", "alice", "preflight-alice", Self.alicePasscode, Self.alicePasscode]
                + ["decline", "quit"],
            arguments: ["--agreements-after-passcode"]
        )
        #expect(declined.output.contains("Not onboarded: the licence agreement was declined."))
        #expect(declining.storeCount() == 0)
    }

    @Test("the app's logs reach 'gangway admin logs' for the user who allows usage reports, never for one who declined")
    func usageReports() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        _ = try await device.launch(
            Self.aliceOnboards + [
                "add", "1", "bob", "preflight-bob", "accept", "decline", Self.bobPasscode, Self.bobPasscode,
            ]
                + ["quit"]
        )
        let admin = GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
        let dataDir = ["--data-dir", device.directory.url.path]
        let enabled = try await admin.run(
            ["admin", "logs", "--upload", "true", "--level", "info", "--interval", "60"] + dataDir
        )
        #expect(enabled.status == 0, "\(enabled.standardError)")
        #expect(
            enabled.output.contains(
                "Logs:            uploaded where users allow it, info and above, at most every 60 s"
            )
        )

        let launched = try await device.launch([
            "Alice Martin", Self.alicePasscode, "switch", "Bob Okafor", Self.bobPasscode, "lock", "quit",
        ])
        #expect(launched.status == 0, "\(launched.standardError)")
        #expect(
            launched.output.contains(
                "Usage reports:  sent to the server (info and above, at most every 60 s; 'reports off' to stop)"
            )
        )
        #expect(launched.output.contains("Usage reports:  not sent ('reports on' to allow)"))

        let listed = try await admin.run(["admin", "logs", "--json"] + dataDir)
        #expect(listed.status == 0, "\(listed.standardError)")
        let entries = try #require(try JSONSerialization.jsonObject(with: listed.standardOutput) as? [[String: Any]])
        let users = Set(entries.compactMap { $0["userID"] as? String })
        #expect(users == ["alice"], "bob declined: none of his records went, nor went with alice's")
        #expect(entries.contains { ($0["message"] as? String)?.hasPrefix("store unlocked") == true })
        #expect(!listed.output.contains(Self.alicePasscode) && !listed.output.contains("preflight"))
        let table = try await admin.run(["admin", "logs"] + dataDir)
        #expect(table.output.hasPrefix("LOGGED"))

        // Alice withdraws: the home screen says so at once.
        let withdrawn = try await device.launch(["Alice Martin", Self.alicePasscode, "reports off", "home", "quit"])
        #expect(withdrawn.output.contains("Usage reports stopped; the logs kept for them are gone."))
        #expect(withdrawn.output.contains("Usage reports:  not sent ('reports on' to allow)"))

        for bad in [["--level", "loud"], ["--interval", "5"], ["--limit", "0"]] {
            let refused = try await admin.run(["admin", "logs"] + bad + dataDir)
            #expect(refused.status == 64, "\(bad)")
        }
    }

    @Test(
        "with a German locale the app speaks German: the screens, the prompts, the home screen and the commands' answers"
    )
    func germanLocale() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let process = GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
        let result = try await process.run(
            ["--data-dir", device.directory.url.path, "--bcrypt-cost", "4"],
            // An unknown email domain, then a wrong password, on the way in.
            lines: ["email", "bob@nowhere.example", "2", "email", "alice@airline.example", "alice", "wrong-pass"]
                + Self.aliceOnboards.dropFirst(2) + [
                    "fly", "help", "edit F-GKXA-fuel aircraft=A380", "edit F-GKXA-tyres status=done", "offline on",
                    "edit F-GKXA-walkaround status=done",
                    "pending", "remove", "n", "home", "quit",
                ],
            extraEnvironment: ["LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8"]
        )
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        for german in [
            // Gangway's screens.
            "== Willkommen ==", "Mit geschäftlicher E-Mail aktivieren", "== Anmelden ==", "== Lizenzvereinbarung",
            "== Passcode erstellen ==", "! Der Passcode erfüllt nicht alle Regeln.",
            "Geben Sie den Passcode erneut ein",
            // The terminal's own: prompts, the checklist, the home screen, commands' answers.
            "Auswahl [1-4]: ", "Arbeits-E-Mail: ", "[ ] mindestens 8 Zeichen",
            "Angemeldet:     Alice Martin (alice)", "Prüfungen:      5 Prüfungen vom Server",
            "Ausstehend:     1 Änderung von Ihnen, noch nicht beim Server",
            "Position 12", "Berichte:       ",
            "Befehle: edit, checks, sync",
            "Das ist kein Befehl (die Eingabe wird nicht wiederholt: sie kann geheim sein); 'help' zeigt die Befehle.",
            "wait SEKUNDEN        so tun, als verginge Zeit",
            "Nicht gespeichert: Geräte dürfen aircraft nicht schreiben.\n",
            "Für diese E-Mail-Adresse ist keine App eingerichtet.", "Falscher Benutzername oder falsches Passwort.",
            "Änderung an F-GKXA-tyres auf diesem Gerät gespeichert (ausstehend).",
            "Der Server hat geantwortet: 1 übernommen.",
            "Offline: Die App erreicht den Server nicht mehr.",
            "1. ändern F-GKXA-walkaround: status=done", "ausstehend: vom Server noch nicht beantwortet",
            "1 Änderung dieses Benutzers hat den Server nicht erreicht.",
            "Diesen Benutzer entfernen und seine Daten vom Gerät löschen? [j/n]: ",
        ] {
            #expect(output.contains(german), "missing: \(german)")
        }
        for english in [
            "== Welcome ==", "Choose [", "Work email", "at least 8 characters", "Signed in:", "Checks:", "Commands:",
            "That is not a command", "saved on this device", "The server answered", "[y/n]", "Pending:", "Press Enter",
            "Wrong user name", "No app is set up", "FIELD_NOT_WRITABLE", "AUTH_FAILED",
        ] {
            #expect(!output.contains(english), "English left: \(english)")
        }
        #expect(device.storeCount() == 1, "'n' kept the user")
    }

    @Test("bad answers and commands get a clear line and change nothing")
    func badInput() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            ["9", "S3cret-for-another-prompt"] + Self.aliceOnboards + [
                "fly", Self.alicePasscode, "stauts", "wait soon", "wait -5", "wait 5 m", "biometrics maybe",
                "biometrics on",
                "biometrics enroll",
                "reports maybe", "edit F-GKXA-fuel note=a note=b", #"edit F-GKXA-fuel "note=open"#, "home",
                "quit",
            ]
        )
        #expect(result.status == 0)
        let output = result.output
        #expect(output.components(separatedBy: "Type a number from 1 to 4.").count == 3)
        // An answer that picks nothing at a menu is not written back either; one that does is.
        #expect(!output.contains("S3cret-for-another-prompt") && !output.contains("[1-4]: 9"), "\(output)")
        #expect(output.contains("[1-4]: email"), "\(output)")
        // What names no command is not written back: it may be a passcode sent for a
        // prompt that did not come.
        let notACommand = "That is not a command (what was typed is not repeated: it may be a secret); 'help' lists"
        #expect(output.components(separatedBy: notACommand).count == 3, "\(output)")
        #expect(!output.contains("fly") && !output.contains(Self.alicePasscode), "\(output)")
        // A near miss is named by the command it most likely meant, never by what was typed.
        #expect(output.contains("That is not a command; did you mean 'status'?"), "\(output)")
        #expect(!output.contains("stauts"))
        #expect(output.contains("gangway> wait soon"), "a command is written back")
        #expect(output.components(separatedBy: "Say how long: wait 30, wait 5m, wait 2h.").count == 4)
        #expect(output.contains("Say 'biometrics on', 'biometrics off' or 'biometrics enroll'."))
        #expect(output.contains("The device has no fingerprint sensor (start the app with --biometrics)."))
        #expect(output.contains("Say 'reports on' or 'reports off'."))
        #expect(output.contains("The field 'note' is given twice; nothing was saved."))
        #expect(output.contains("A double quote is left open; nothing was done."))
        #expect(!output.contains("saved on this device"), "no edit was recorded: \(output)")
        #expect(output.contains("Usage reports:  allowed; the server takes none now"), "'maybe' changed nothing")
        #expect(output.contains("Biometric unlock is not available"), "no sensor enrolled without --biometrics")
        #expect(output.contains("Biometrics:     off"))
        #expect(device.storeCount() == 1)
    }

    @Test(
        "a work email that is not an address is said to be one, and the next try onboards",
        arguments: [
            "alice", "a@b@airline.example", "@airline.example", "x@y", "a@airline.example.",
            "a@" + String(repeating: "b", count: 400) + ".example",
        ]
    )
    func notAnEmail(typed: String) async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(["email", typed, "1"] + Self.aliceOnboards + ["quit"])
        #expect(result.status == 0)
        let output = result.output
        #expect(output.contains("That is not an email address."), "\(output)")
        #expect(output.contains("Type your whole work email, such as name@company.example."))
        #expect(!output.contains("The app configuration is not valid."))
        #expect(output.contains("Signed in:      Alice Martin (alice)"))
    }

    @Test("after a wrong password the sign-in keeps the user name, and an empty password cancels it")
    func signInCancelledAfterAFailure() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            [
                "email", "alice@airline.example", "alice", "wrong-password", "", "", "sign in", "alice",
                "preflight-alice",
            ]
                + ["accept", "allow", Self.alicePasscode, Self.alicePasscode, "quit"]
        )
        #expect(result.status == 0)
        let output = result.output
        #expect(output.contains("Wrong user name or password."))
        #expect(output.contains("User name [alice]: \nPassword (empty to cancel): \nCancelled."), "\(output)")
        #expect(output.contains("Signed in:      Alice Martin (alice)"), "\(output)")
    }

    @Test("--permissions: the app's page, then the device's question; kept for the device; a launch asks nothing")
    func permissions() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let arguments = ["--permissions", "camera,notifications", "--permissions", "location"]
        let result = try await device.launch(
            Self.aliceOnboards + [
                "allow", "allow",  // camera: the app's page, then the device's question
                "not now",  // notifications: skipped, no question
                "allow", "don't allow",  // location
                "permissions", "permissions allow notifications", "permissions grant camera", "quit",
            ],
            arguments: arguments
        )
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        for expected in [
            "== Allow Camera Access ==", "Photograph the damage you find", "Page 1 of 3",
            "The device asks: “Gangway” would like to access the camera.",
            "== Allow Notifications ==", "Page 2 of 3", "== Allow Location Access ==", "Page 3 of 3",
            "camera: allowed\nlocation: not allowed\nnotifications: not asked yet\n",
            "notifications: allowed\n",
            "Say 'permissions' to list them",
        ] {
            #expect(output.contains(expected), "missing: \(expected)")
        }
        #expect(!output.contains("would like to send you notifications"), "Not Now asks the device nothing")
        let order = ["Create Passcode", "Allow Camera Access", "Aircraft Ground Checks"].map {
            output.range(of: "== \($0)")?.lowerBound
        }
        #expect(
            order.compactMap { $0 } == order.compactMap { $0 }.sorted() && !order.contains(nil),
            "after the passcode"
        )
        let file = device.directory.appending("device/permissions.json")
        let saved = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: file))
        #expect(saved == ["camera": "granted", "location": "denied", "notifications": "granted"])
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)

        // The next launch asks nothing, whatever --permissions says.
        let relaunch = try await device.launch([Self.alicePasscode, "quit"], arguments: arguments)
        #expect(relaunch.status == 0)
        #expect(!relaunch.output.contains("== Allow"))
    }

    @Test("--permissions names only permissions the app knows", arguments: ["camra", "camera,,location", "all"])
    func unknownPermissions(value: String) async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(["quit"], arguments: ["--permissions", value])
        #expect(result.status == 64)
        #expect(result.standardError.contains("is not a permission: say camera, location or notifications"))
        #expect(!result.standardError.contains("Fatal"))
        #expect(!FileManager.default.fileExists(atPath: device.directory.appending("device").path), "nothing made")
    }

    @Test("without --data-dir the app keeps its data in $HOME/.gangway")
    func defaultDataDirectory() async throws {
        let home = try TemporaryDirectory(prefix: "gangway-home")
        defer { home.remove() }
        let process = GangwayProcess(deviceKeys: home.appending("unused-keys"))
        let result = try await process.run(
            ["--bcrypt-cost", "4"],
            lines: ["demo", "quit"],
            extraEnvironment: ["HOME": home.url.path]
        )
        #expect(result.status == 0)
        #expect(result.output.contains("(SQLite in \(home.url.path)/.gangway/server)"))
        #expect(FileManager.default.fileExists(atPath: home.appending(".gangway/device/device-id").path))
    }

    @Test("--server must be an http URL; the command line error exits 64")
    func badServerURL() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch([], arguments: ["--server", "ftp://example"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("--server 'ftp://example' must start with http:// or https://."))
    }

    @Test("passcode change: the new passcode opens the store at the next launch, the old one does not")
    func changePasscode() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let newPasscode = "Night-Shift-9753"
        let changed = try await device.launch(
            Self.aliceOnboards + ["passcode", Self.alicePasscode, newPasscode, newPasscode, "quit"]
        )
        #expect(changed.output.contains("The passcode changed."))
        #expect(!changed.output.contains(newPasscode))
        let relaunch = try await device.launch(["1", Self.alicePasscode, newPasscode, "quit"])
        #expect(relaunch.output.contains("Wrong passcode. Tries left: 9"))
        #expect(relaunch.output.contains("Signed in:      Alice Martin (alice)"))
    }

    @Test(
        "a wrong current passcode at a change says the tries left, and warns before the last; the right one changes it"
    )
    func changePasscodeTriesLeft() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let newPasscode = "Night-Shift-9753"
        let wrong = (1...9).flatMap { ["Wrong-Guess-\($0)", newPasscode, newPasscode] }
        let changed = try await device.launch(
            Self.aliceOnboards + ["passcode"] + wrong + [Self.alicePasscode, newPasscode, newPasscode, "quit"]
        )
        let output = changed.output
        #expect(output.contains("The current passcode was wrong. Tries left: 9"))
        #expect(output.contains("The current passcode was wrong. Tries left: 2"))
        #expect(
            output.contains(
                "The current passcode was wrong. One try left. Another wrong passcode erases this user's data."
            )
        )
        #expect(output.contains("The passcode changed."))
        #expect(device.storeCount() == 1)
    }

    @Test("cancelling a passcode change asks first: 'no' goes back to the field, 'yes' keeps the old passcode")
    func cancelledPasscodeChange() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + ["passcode", Self.alicePasscode, "", "no", "short", "", "yes", "quit"]
        )
        #expect(result.status == 0)
        let output = result.output
        #expect(output.components(separatedBy: "== Cancel? ==").count == 3, "asked at each cancel")
        #expect(output.contains("Your passcode stays as it is; what you typed is discarded."))
        #expect(output.contains("Yes, Cancel") && output.contains("No, Go Back"))
        let asked = try #require(output.range(of: "== Cancel? =="))
        #expect(output[asked.upperBound...].contains("! The passcode does not meet every rule."), "back after 'no'")
        #expect(!output.contains("The passcode changed."))
        let relaunch = try await device.launch(["1", Self.alicePasscode, "quit"])
        #expect(relaunch.output.contains("Signed in:      Alice Martin (alice)"))
    }

    @Test("biometrics on and off on a personal device with the simulated sensor enrolled")
    func biometrics() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + ["n", "biometrics on", "home", "biometrics off", "home", "quit"],
            arguments: ["--personal-device", "--biometrics"]
        )
        let output = result.output
        #expect(output.contains("== Unlock with your fingerprint? =="), "the texts name the sensor")
        #expect(output.contains("Biometric unlock is on."))
        #expect(output.contains("Biometric unlock is off."))
        let states = output.components(separatedBy: "Biometrics:     ").dropFirst().map { $0.prefix(3) }
        #expect(states == ["off", "on\n", "off"])
    }

    @Test(
        "another finger enrolled: the passcode unlocks, the app says why fingerprint unlock went off, and it turns on again"
    )
    func enrollmentChanged() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let arguments = ["--personal-device", "--biometrics"]
        let result = try await device.launch(
            Self.aliceOnboards + [
                "y", "biometrics enroll", "lock", "wait 301", "resume", Self.alicePasscode, "2", "home",
                "biometrics on", "quit",
            ],
            arguments: arguments
        )
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        #expect(output.contains("Another finger was enrolled on the sensor (simulated)"))
        // The return asks no finger: it says why first, then asks for the passcode.
        let enrolled = try #require(output.range(of: "Another finger was enrolled"))
        let passcode = try #require(
            output.range(of: "== Enter Passcode ==", range: enrolled.upperBound..<output.endIndex)
        )
        let beforePasscode = output[enrolled.upperBound..<passcode.lowerBound]
        #expect(!beforePasscode.contains("fingerprint accepted"), "\(beforePasscode)")
        #expect(
            output[passcode.upperBound...].contains(
                "Unlocking with your fingerprint is off: the biometrics enrolled on this device changed."
            ),
            "\(output)"
        )
        let notice = try #require(output.range(of: "== Biometric Unlock Turned Off =="), "\(output)")
        let after = output[notice.upperBound...]
        #expect(after.contains("Unlocking with your fingerprint was turned off"))
        #expect(after.contains("The biometrics enrolled on this device changed"))
        #expect(after.contains("1) Turn On") && after.contains("2) Not Now"))
        let states = output.components(separatedBy: "Biometrics:     ").dropFirst().map { $0.prefix(3) }
        #expect(states == ["on\n", "off", "off"], "off after Not Now, until turned on in the settings")
        #expect(output.contains("Biometric unlock is on."))

        // The new enrollment opens the next launch without the passcode.
        let relaunch = try await device.launch(["quit"], arguments: arguments)
        #expect(relaunch.output.contains("fingerprint accepted (simulated sensor)"))
        #expect(!relaunch.output.contains("== Enter Passcode =="))
        #expect(relaunch.output.contains("Signed in:      Alice Martin (alice)"))
    }

    @Test("a relaunch unlocks with the simulated fingerprint, and says it was simulated")
    func biometricUnlockOnRelaunch() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let first = try await device.launch(
            Self.aliceOnboards + ["n", "biometrics on", "quit"],
            arguments: ["--personal-device", "--biometrics"]
        )
        #expect(first.output.contains("Biometric unlock is on."))
        let relaunch = try await device.launch(["quit"], arguments: ["--personal-device", "--biometrics"])
        #expect(relaunch.output.contains("fingerprint accepted (simulated sensor)."), "\(relaunch.output)")
        #expect(relaunch.output.contains("Signed in:      Alice Martin (alice)"))
        #expect(!relaunch.output.contains("== Enter Passcode =="))
    }

    @Test("logout signs out and asks again; remove erases the user's store")
    func logoutAndRemove() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let loggedOut = try await device.launch(Self.aliceOnboards + ["logout"])
        #expect(loggedOut.output.contains("Signed out."))
        #expect(device.storeCount() == 1, "logging out keeps the data")
        // The next launch restores the store with the passcode, then asks for a sign-in.
        let removed = try await device.launch([
            "1", Self.alicePasscode, "alice", "preflight-alice", "remove", "y", "quit",
        ])
        #expect(removed.output.contains("You signed out. Sign in again."))
        #expect(removed.output.contains("The user was removed."))
        #expect(device.storeCount() == 0)
    }

    @Test("logout with no server in reach asks, then signs out on this device only: the next launch asks for a sign-in")
    func logoutOffline() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(
            Self.aliceOnboards + [
                "offline on", "logout", "S3cret-for-another-prompt", "n", "home", "logout", "y", "quit",
            ]
        )
        let output = result.output
        // An answer that is neither yes nor no is not written back; a yes or a no is.
        #expect(output.contains("Answer y or n."))
        #expect(!output.contains("S3cret-for-another-prompt"), "\(output)")
        #expect(output.contains("[y/n]: n\n"), "\(output)")
        #expect(
            output.components(separatedBy: "The server cannot be reached, so your session cannot be ended there now.")
                .count == 3
        )
        let kept = try #require(output.range(of: "Sign out on this device only?"))
        #expect(output[kept.upperBound...].contains("Signed in:      Alice Martin (alice)"), "'n' kept the session")
        #expect(output.contains("Signed out on this device. Your data stays locked in your store."))
        #expect(device.storeCount() == 1, "the data stays")
        let relaunch = try await device.launch(["1", Self.alicePasscode, "alice", "preflight-alice", "quit"])
        #expect(relaunch.output.contains("You signed out. Sign in again."), "\(relaunch.output)")
        #expect(relaunch.output.contains("Signed in:      Alice Martin (alice)"))
    }

    @Test("declining the licence agreement onboards nobody and returns to the welcome screen")
    func eulaDeclined() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch([
            "email", "alice@airline.example", "alice", "preflight-alice", "decline", "quit",
        ])
        #expect(result.status == 0)
        let output = result.output
        #expect(output.contains("Not onboarded: the licence agreement was declined."), "\(output)")
        #expect(output.components(separatedBy: "== Welcome ==").count == 3, "back to the welcome screen")
        #expect(!output.contains("== Create Passcode =="))
        #expect(device.storeCount() == 0)
        // The next attempt asks again; accepting it, and declining the optional consent, onboards.
        let again = try await device.launch(
            ["1", "alice", "preflight-alice", "accept", "decline"] + [Self.alicePasscode, Self.alicePasscode, "quit"]
        )
        #expect(again.output.contains("Signed in:      Alice Martin (alice)"), "\(again.output)")
        #expect(device.storeCount() == 1)
    }

    @Test("demo mode: sample checks, nothing kept, and back to the welcome screen")
    func demoMode() async throws {
        let device = try Device()
        defer { device.directory.remove() }
        let result = try await device.launch(["demo", "back", "demo", "quit"])
        #expect(result.status == 0)
        let output = result.output
        #expect(output.components(separatedBy: "== Demo mode ==").count == 3)
        #expect(output.contains("Checks (samples, read-only):"))
        #expect(output.contains("A320 F-GKXA   stand 12   tyre pressure    open"))
        #expect(device.storeCount() == 0)
        #expect(!FileManager.default.fileExists(atPath: device.directory.appending("device/configuration.json").path))
    }
}

@Suite("gangway, the device app, on a terminal", .tags(.endToEnd), .skipsTags)
struct DeviceAppTerminalTests {
    @Test("a passcode typed on a terminal shows as dots with the checklist ticking; it never echoes")
    func passcodeOnTerminal() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-app-tty")
        defer { directory.remove() }
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let terminal = try PseudoTerminalSession(
            arguments: ["--data-dir", directory.url.path, "--bcrypt-cost", "4"],
            environment: ["GANGWAY_KDF_ROUNDS": "1000"]
        )
        #expect(terminal.waitFor("Choose [1-4]: "))
        terminal.type("email")
        #expect(terminal.waitFor("Work email: "))
        terminal.type("alice@airline.example")
        #expect(terminal.waitFor("User name (empty to cancel): "))
        terminal.type("alice")
        #expect(terminal.waitFor("Password: "))
        terminal.type("preflight-alice")
        #expect(terminal.waitFor("Licence Agreement (version 2026.11)"))
        terminal.type("accept")
        #expect(terminal.waitFor("Usage reports"))
        terminal.type("allow")
        #expect(terminal.waitFor("Choose a passcode: "))
        // Line editing as a terminal's own: Ctrl-U takes all that was typed, Ctrl-W a word.
        terminal.type("Typo-Garbage\u{15}" + passcode)
        #expect(terminal.waitFor("Enter the passcode again"))
        terminal.type(passcode + " two words\u{17}\u{17}\u{7F}")
        #expect(terminal.waitFor("gangway> "))
        terminal.type("quit")
        #expect(terminal.finish() == 0)
        let screen = terminal.screen
        #expect(!screen.contains("did not match"), "both edits took: \(screen)")
        #expect(screen.contains("✓ at least 8 characters"), "the checklist ticks as the passcode is typed")
        #expect(screen.contains(String(repeating: "•", count: passcode.count)))
        #expect(!screen.contains(passcode))
        #expect(!screen.contains("preflight-alice\r\n"), "the password does not echo")
        #expect(screen.contains("\u{1B}[1m"), "a terminal gets styles")
        // Each call to the server says what it waits for, then wipes the line.
        for activity in ["⋯ Looking up the app for your work email", "⋯ Signing in", "⋯ Exchanging settings"] {
            #expect(screen.contains(activity), "no progress line: \(activity)")
        }
        #expect(screen.contains("\r\u{1B}[2K"))
    }

    /// Alice's onboarding by her work email on a terminal, up to her passcode: each
    /// prompt, and what is typed at it.
    static let aliceUpToThePasscode = [
        ("Choose [1-4]: ", "email"), ("Work email: ", "alice@airline.example"),
        ("User name (empty to cancel): ", "alice"), ("Password: ", "preflight-alice"),
        ("Licence Agreement (version 2026.11)", "accept"), ("Usage reports", "allow"),
    ]
    static let alicesPasscode = [
        ("Choose a passcode: ", DeviceAppEndToEndTests.alicePasscode),
        ("Enter the passcode again", DeviceAppEndToEndTests.alicePasscode),
    ]

    /// Types each answer once its prompt shows.
    static func answer(_ terminal: PseudoTerminalSession, _ steps: [(prompt: String, answer: String)]) {
        for (prompt, answer) in steps {
            #expect(terminal.next(prompt), "never asked: \(prompt)")
            terminal.type(answer)
        }
    }

    @Test("--plain on a terminal: a password or passcode read as a line never shows; an answer shows once")
    func plainOnTerminal() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-app-tty")
        defer { directory.remove() }
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let terminal = try PseudoTerminalSession(
            arguments: ["--data-dir", directory.url.path, "--bcrypt-cost", "4", "--plain"],
            environment: [:]
        )
        Self.answer(terminal, Self.aliceUpToThePasscode + Self.alicesPasscode + [("gangway> ", "quit")])
        #expect(terminal.finish() == 0)
        let screen = terminal.screen
        #expect(!screen.contains("Password: preflight-alice"), "the password showed")
        #expect(!screen.contains(passcode), "the passcode showed")
        #expect(screen.components(separatedBy: "alice@airline.example").count == 2, "the answer shows once")
        #expect(!screen.contains("\u{1B}["), "plain: no escape codes")
        #expect(terminal.isInLineMode)
    }

    @Test(
        "NO_COLOR: a terminal without colours, the passcode still dots; TERM=dumb: plain lines, nothing echoed",
        arguments: [["NO_COLOR": "1"], ["TERM": "dumb"]]
    )
    func terminalPreferences(environment: [String: String]) throws {
        let directory = try TemporaryDirectory(prefix: "gangway-app-tty")
        defer { directory.remove() }
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let terminal = try PseudoTerminalSession(
            arguments: ["--data-dir", directory.url.path, "--bcrypt-cost", "4"],
            environment: environment
        )
        Self.answer(terminal, Self.aliceUpToThePasscode + Self.alicesPasscode + [("gangway> ", "quit")])
        #expect(terminal.finish() == 0)
        let screen = terminal.screen
        #expect(!screen.contains(passcode) && !screen.contains("Password: preflight-alice"))
        #expect(!screen.contains("\u{1B}[1m") && !screen.contains("\u{1B}[3"), "no colours or bold")
        #expect(screen.contains("== Create Passcode =="))
        if environment["TERM"] == "dumb" {
            #expect(!screen.contains("\u{1B}["), "no cursor movement on a dumb terminal")
        } else {
            #expect(screen.contains(String(repeating: "•", count: passcode.count)), "still typed as dots")
        }
    }

    @Test(
        "SIGTERM or SIGHUP while a passcode is typed: the terminal is put back, one line says why, exit 128 + signal",
        arguments: [SIGTERM, SIGHUP]
    )
    func stoppedWhileRaw(signal: Int32) throws {
        let directory = try TemporaryDirectory(prefix: "gangway-app-tty")
        defer { directory.remove() }
        let terminal = try PseudoTerminalSession(
            arguments: ["--data-dir", directory.url.path, "--bcrypt-cost", "4"],
            environment: [:]
        )
        Self.answer(terminal, Self.aliceUpToThePasscode)
        #expect(terminal.next("Choose a passcode: "))
        terminal.press(Array("Fuel".utf8))
        #expect(terminal.next("••••"))
        terminal.send(signal)
        #expect(terminal.finish() == 128 + signal)
        #expect(
            terminal.screen.contains("Stopped by \(signal == SIGTERM ? "SIGTERM" : "SIGHUP"); nothing more was done.")
        )
        #expect(terminal.isInLineMode, "the terminal was left raw")
    }
}

import Foundation
import GRDB
import GangwaySystem
import GangwayTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a newcomer types wrong in the first hour, run against the built `gangway`: every
/// mistake gets one sentence and a non-zero exit, never a backtrace, and leaves nothing
/// behind.
@Suite("The first hour: wrong inputs get one sentence, and nothing is created by mistake", .tags(.endToEnd), .skipsTags)
struct FirstHourEndToEndTests {
    /// What a failure printed is one line and no backtrace.
    private func expectOneSentence(_ result: GangwayProcess.Result, _ comment: Comment? = nil) {
        let text = result.standardError
        #expect(!text.contains("Fatal error"), comment)
        #expect(!text.contains("Backtrac"), comment)
        #expect(!text.contains("PSQLError"), comment)
        #expect(!text.contains("bind(descriptor"), comment)
    }

    @Test(
        "a port past 65535, a user name in the URL, another scheme: refused with exit 64 by the app, admin and serve",
        arguments: [
            (["--server", "http://127.0.0.1:99999"], "has a port outside 1 to 65535"),
            (["admin", "apps", "--server", "http://127.0.0.1:99999"], "has a port outside 1 to 65535"),
            (["admin", "users", "--server", "http://127.0.0.1:0"], "has a port outside 1 to 65535"),
            (["--server", "https://admin:secret@mobile.example"], "must not carry a user name or password"),
            (["--server", "ftp://mobile.example"], "must start with http:// or https://"),
            (["--server", "http://"], "names no host"),
            (["--server", "http://exa mple"], "is not a URL"),
            (["serve", "--public-url", "http://127.0.0.1:65536"], "has a port outside 1 to 65535"),
            (["serve", "--postgres", "postgres://gangway@db:70000/gangway"], "port must be between 1 and 65535"),
            (
                ["serve", "--postgres", "postgres://gangway@db/gangway?sslmode=verify-cn"],
                "sslmode must be disable, allow, prefer, require, verify-ca or verify-full"
            ),
            (["--terms", "Terms@1=http://127.0.0.1:99999/terms"], "is not TITLE@VERSION=URL"),
        ]
    )
    func typedURLs(arguments: [String], reason: String) async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-url")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let result = try await runner.run(
            arguments + ["--data-dir", directory.appending("data").path],
            extraEnvironment: ["HOME": directory.url.path]
        )
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains(reason), "\(result.standardError)")
        expectOneSentence(result)
        #expect(!FileManager.default.fileExists(atPath: directory.appending("data").path), "nothing created")
    }

    @Test(
        "an empty directory option is refused with exit 64, never taken as the current directory",
        arguments: [
            (["--data-dir", ""], "--data-dir needs a directory."),
            (["serve", "--data-dir", " "], "--data-dir needs a directory."),
            (["admin", "users", "--data-dir", ""], "--data-dir needs a directory."),
            (["store", "info", "--path", ""], "--path needs a directory."),
            (["store", "info", "--path", "x", "--device-keys", ""], "--device-keys needs a directory."),
        ]
    )
    func emptyDirectories(arguments: [String], reason: String) async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-empty-dir")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let result = try await runner.run(arguments, extraEnvironment: ["HOME": directory.url.path], in: directory.url)
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains(reason), "\(result.standardError)")
        expectOneSentence(result)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty, "nothing created")
    }

    @Test("a --terms value that is not one is quoted with its control characters written out, never sent raw")
    func termsWithControls() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-terms")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let result = try await runner.run(
            ["--terms", "Terms\u{1B}]0;pwned\u{7}\u{1B}[2J", "--data-dir", directory.appending("data").path]
        )
        #expect(result.status == 64)
        #expect(result.standardError.contains(#"--terms 'Terms\u{1B}]0;pwned\u{7}\u{1B}[2J' is not TITLE@VERSION=URL"#))
        #expect(!result.standardError.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" })
        expectOneSentence(result)
    }

    @Test("admin never creates a server: a mistyped --data-dir is an error naming where it looked")
    func adminNeverCreatesAServer() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-admin-typo")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let typo = directory.appending("gangway-sevrer")
        for arguments in [["settings"], ["users", "add", "carol"], ["apps"]] {
            let result = try await runner.run(
                ["admin"] + arguments + ["--data-dir", typo.path, "--bcrypt-cost", "4"],
                lines: ["carol-password-1", "carol-password-1"]
            )
            #expect(result.status == 1, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("no Gangway server in \(typo.path)"), "\(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1)
            #expect(!result.output.contains("preflight-"), "no demo passwords")
            #expect(!FileManager.default.fileExists(atPath: typo.path), "nothing created")
        }
        // Nor in an existing directory that holds no server.
        try FileManager.default.createDirectory(at: typo, withIntermediateDirectories: false)
        chmod(typo.path, 0o700)
        let result = try await runner.run(["admin", "users", "--data-dir", typo.path])
        #expect(result.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: typo.path).isEmpty)
        // A stopped server's directory with its token and key but no database (a server on
        // PostgreSQL): to start it as before, with its database, not as a new one.
        for name in ["admin-token", "server-key"] {
            try PrivateFiles.write(Data("x\n".utf8), to: typo.appendingPathComponent(name))
        }
        let stopped = try await runner.run(["admin", "users", "--data-dir", typo.path])
        #expect(stopped.status == 1)
        #expect(
            stopped.standardError.contains("is not running, and keeps its data elsewhere (PostgreSQL)")
                && stopped.standardError.contains("with its --postgres-file or --config"),
            "\(stopped.standardError)"
        )
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: typo.path).sorted() == ["admin-token", "server-key"]
        )
    }

    @Test("one process per data directory: a second serve, or a second app, is refused naming the first")
    func oneProcessPerDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-lock")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let data = directory.appending("server")
        let first = try runner.launch(
            ["serve", "--port", "0", "--data-dir", data.path, "--bcrypt-cost", "4"],
            lines: []
        )
        defer {
            first.terminate()
            first.waitUntilExit()
        }
        let url = data.appendingPathComponent("url")
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: url.path) {
            try await Task.sleep(for: .milliseconds(50))
        }
        let served = try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

        // On the port the first one took too: the directory is what is said.
        let port = try #require(URL(string: served)?.port)
        let second = try await runner.run(["serve", "--port", "\(port)", "--data-dir", data.path, "--bcrypt-cost", "4"])
        #expect(second.status == 1)
        #expect(
            second.standardError.contains(
                "\(data.path) is in use by process \(first.processIdentifier) (gangway serve)"
            ),
            "\(second.standardError)"
        )
        #expect(second.standardError.split(separator: "\n").count == 1)
        #expect(
            try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == served,
            "the first server's URL is untouched"
        )
        #expect(first.isRunning)

        // The device app whose embedded server would use the same database.
        let app = try await runner.run(["--data-dir", directory.url.path, "--bcrypt-cost", "4"], lines: ["quit"])
        #expect(app.status == 1)
        #expect(app.standardError.contains("is in use by process \(first.processIdentifier) (gangway serve)"))

        // Two apps on one data directory, against the running server.
        let home = directory.appending("home")
        let running = try runner.launch(["--data-dir", home.path, "--server", served], lines: [], keepInputOpen: true)
        defer {
            running.terminate()
            running.waitUntilExit()
        }
        let deviceLock = home.appendingPathComponent("device/lock")
        for _ in 0..<300 where (try? String(contentsOf: deviceLock, encoding: .utf8))?.isEmpty ?? true {
            try await Task.sleep(for: .milliseconds(50))
        }
        let twice = try await runner.run(["--data-dir", home.path, "--server", served], lines: ["quit"])
        #expect(twice.status == 1)
        #expect(
            twice.standardError.contains("is in use by process \(running.processIdentifier) (gangway, the device app)"),
            "\(twice.standardError)"
        )

        // Once the first stops, the directory is free again: the OS released the lock.
        first.terminate()
        try await first.exit()
        let after = try runner.launch(
            ["serve", "--port", "0", "--data-dir", data.path, "--bcrypt-cost", "4"],
            lines: []
        )
        defer {
            after.terminate()
            after.waitUntilExit()
        }
        try await Task.sleep(for: .seconds(1))
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: url.path) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(after.isRunning)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    @Test(
        "an address in use (the devices', the metrics'), or not on this machine: one sentence, before any file is written"
    )
    func addressInUse() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-port")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let listener = try LoopbackListener()
        defer { listener.close() }
        let data = directory.appending("server")
        let busy = try await runner.run(["serve", "--port", "\(listener.port)", "--data-dir", data.path])
        #expect(busy.status == 1)
        #expect(
            busy.standardError
                == "gangway serve: cannot listen on 127.0.0.1:\(listener.port): another program is listening there.\n"
        )
        #expect(!FileManager.default.fileExists(atPath: data.path), "no file written")
        // The metrics' address too, before the server says it listens.
        let metricsBusy = try await runner.run([
            "serve", "--port", "0", "--metrics-port", "\(listener.port)", "--data-dir", data.path,
        ])
        #expect(metricsBusy.status == 1)
        #expect(
            metricsBusy.standardError
                == "gangway serve: cannot listen on 127.0.0.1:\(listener.port) for the metrics: "
                + "another program is listening there.\n"
        )
        #expect(!FileManager.default.fileExists(atPath: data.path), "no file written")

        let elsewhere = try await runner.run([
            "serve", "--host", "192.0.2.1", "--port", "8080", "--data-dir", data.path,
        ])
        #expect(elsewhere.status == 1)
        #expect(elsewhere.standardError.contains("that host is not an address of this machine"))
        #expect(!FileManager.default.fileExists(atPath: data.path))
    }

    @Test("PostgreSQL down: one progress line, then one sentence naming the address, within the wait given")
    func postgresDown() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-pg-down")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let data = directory.appending("server")
        // The URL in a file of the user's own, as the README shows: its password never on
        // the command line.
        let urlFile = directory.appending("database-url")
        try PrivateFiles.write(Data("postgres://gangway:db-secret-17@127.0.0.1:1/gangway\n".utf8), to: urlFile)
        let started = ContinuousClock.now
        let result = try await runner.run([
            "serve", "--port", "0", "--data-dir", data.path, "--wait-for-database", "2",
            "--postgres-file", urlFile.path,
        ])
        let took = ContinuousClock.now - started
        #expect(result.status == 1)
        #expect(
            result.standardError
                == "Waiting for PostgreSQL at 127.0.0.1:1 (up to 2 s; --wait-for-database)…\n"
                + "gangway serve: PostgreSQL at 127.0.0.1:1 cannot be reached (connection refused); gave up after 2 seconds.\n"
        )
        #expect(!result.standardError.contains("db-secret-17"))
        // It waited the time given (how much longer a loaded machine took is no measure:
        // its own line says when it gave up).
        #expect(took >= .seconds(2), "\(took)")
        #expect(!FileManager.default.fileExists(atPath: data.path), "no file written")

        // On the command line it works too, and the password there is warned of.
        let inline = try await runner.run([
            "serve", "--port", "0", "--data-dir", data.path, "--wait-for-database", "1",
            "--postgres", "postgres://gangway:db-secret-17@127.0.0.1:1/gangway",
        ])
        #expect(inline.status == 1)
        #expect(inline.standardError.hasPrefix("Warning: the password in --postgres shows in the process list"))
        #expect(!inline.standardError.contains("db-secret-17"))
        // Both at once, or a file others can read, are refused before anything starts.
        let both = try await runner.run([
            "serve", "--data-dir", data.path, "--postgres", "postgres://127.0.0.1:1/g", "--postgres-file", urlFile.path,
        ])
        #expect(both.status == 64 && both.standardError.contains("not both"), "\(both)")
        #expect(chmod(urlFile.path, 0o644) == 0)
        let readable = try await runner.run(["serve", "--data-dir", data.path, "--postgres-file", urlFile.path])
        #expect(readable.status == 1 && !readable.standardError.contains("db-secret-17"), "\(readable)")
        #expect(!FileManager.default.fileExists(atPath: data.path), "no file written")
    }

    @Test("a script that ends mid-onboarding fails; one that ends at the home prompt does not")
    func inputEndingEarly() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-eof")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let stops = [
            [], ["3"], ["3", "alice@airline.example", "alice"],
            ["3", "alice@airline.example", "alice", "preflight-alice"],
        ]
        for (index, lines) in stops.enumerated() {
            // A fresh device each time: an activation is kept, and changes the welcome.
            let home = directory.appending("home-\(index)").path
            let result = try await runner.run(["--data-dir", home, "--bcrypt-cost", "4"], lines: lines)
            #expect(result.status == 1, "\(lines)")
            #expect(
                result.standardError == "The input ended before this screen was done; the app stops here.\n",
                "on standard error, alone: \(result.standardError)"
            )
            #expect(!result.output.contains("The input ended"), "\(result.output)")
            expectOneSentence(result)
        }
        let home = directory.appending("home").path
        let onboarded = try await runner.run(
            ["--data-dir", home, "--bcrypt-cost", "4"],
            lines: [
                "3", "alice@airline.example", "alice", "preflight-alice", "1", "2", "Gangway-Test-1", "Gangway-Test-1",
            ]
        )
        #expect(onboarded.status == 0, "\(onboarded.output)")
        #expect(onboarded.output.contains("The input ended; goodbye."))
        // In the middle of a command at the home prompt.
        let restored = try await runner.run(
            ["--data-dir", home, "--bcrypt-cost", "4"],
            lines: ["Gangway-Test-1", "passcode"]
        )
        #expect(restored.status == 1, "\(restored.output)")
        #expect(restored.standardError.hasSuffix("The input ended before this screen was done; the app stops here.\n"))
        // A mistyped `logout server` asks which, and closes nothing.
        let typo = try await runner.run(
            ["--data-dir", home, "--bcrypt-cost", "4"],
            lines: ["1", "Gangway-Test-1", "logout srever", "quit"]
        )
        #expect(typo.status == 0, "\(typo.output)")
        #expect(typo.output.contains("Say which: logout (sign out and close the session) or logout server"))
        #expect(!typo.output.contains("Signed out."), "\(typo.output)")
        // After `logout server`, the home screen's read asks for a sign-in: a screen of its
        // own, before the home screen; the input ending there stops the app as anywhere.
        let signedOut = try await runner.run(
            ["--data-dir", home, "--bcrypt-cost", "4"],
            lines: ["1", "Gangway-Test-1", "logout server", "home"]
        )
        #expect(signedOut.status == 1, "\(signedOut.output)")
        #expect(signedOut.standardError.hasSuffix("The input ended before this screen was done; the app stops here.\n"))
        let told = try #require(signedOut.output.range(of: "Signed out on the server"), "\(signedOut.output)")
        let after = signedOut.output[told.upperBound...]
        #expect(after.contains("== Sign In =="), "\(after)")
        #expect(!after.contains("Signed in:") && !after.contains("Checks:"), "no home screen around it: \(after)")
        let again = try await runner.run(
            ["--data-dir", home, "--bcrypt-cost", "4"],
            lines: ["1", "Gangway-Test-1", "logout server", "home", "alice", "preflight-alice", "quit"]
        )
        #expect(again.status == 0, "\(again.output)")
        let signIn = try #require(again.output.range(of: "== Sign In =="), "\(again.output)")
        #expect(again.output[signIn.upperBound...].contains("Signed in:      Alice Martin (alice)"))
        // In the middle of another user's onboarding, started by `add`: the app stops there too.
        let adding = try await runner.run(
            ["--data-dir", home, "--bcrypt-cost", "4"],
            lines: ["1", "Gangway-Test-1", "add"]
        )
        #expect(adding.status == 1, "\(adding.output)")
        #expect(adding.standardError.hasSuffix("The input ended before this screen was done; the app stops here.\n"))
        #expect(!adding.output.contains("add failed"), "\(adding.output)")
        #expect(adding.output.contains("== Welcome =="), "the new user's onboarding began: \(adding.output)")
    }

    @Test("Ctrl-C at a prompt: exit 130 and one line, the server's URL file gone")
    func interrupt() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-sigint")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let running = try runner.launchCapturing(["--data-dir", directory.url.path, "--bcrypt-cost", "4"])
        let (process, output, errors) = (running.process, running.output, running.errors)
        let url = directory.appending("server/url")
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: url.path) {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .milliseconds(500))
        kill(process.processIdentifier, SIGINT)
        try await process.exit()
        #expect(process.terminationStatus == 130)
        #expect(process.terminationReason == .exit)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text == "\nInterrupted (Ctrl-C); nothing more was done.\n")
        #expect(
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("Choose [1-4]")
        )
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test(
        "Ctrl-C on a terminal: at a choice (a signal) and at a passcode (a key in raw mode), the same line and exit 130"
    )
    func interruptOnATerminal() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-sigint-tty")
        defer { directory.remove() }
        let environment = ["GANGWAY_KDF_ROUNDS": "1000", "GANGWAY_DEVICE_KEYS": directory.appending("keys").path]
        let app = try PseudoTerminalSession(
            arguments: ["--data-dir", directory.url.path, "--bcrypt-cost", "4"],
            environment: environment
        )
        #expect(app.waitFor("Choose [1-4]: "))
        app.send(SIGINT)
        #expect(app.finish() == 130)
        #expect(app.screen.contains("Interrupted (Ctrl-C); nothing more was done."), "\(app.screen)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("server/url").path))

        let store = try PseudoTerminalSession(
            arguments: ["store", "init", "--path", directory.appending("store").path],
            environment: environment
        )
        #expect(store.waitFor("New passcode: "))
        store.press(Array("half-typ".utf8) + [3])
        #expect(store.finish() == 130)
        #expect(store.screen.contains("Interrupted (Ctrl-C); nothing more was done."), "\(store.screen)")
        #expect(!store.screen.contains("half-typ"))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("store").path), "no store made")
    }

    @Test("store init refuses a passcode the policy refuses before asking for it again")
    func storeInitChecksThePolicyFirst() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-store-policy")
        defer { directory.remove() }
        let store = try PseudoTerminalSession(
            arguments: ["store", "init", "--path", directory.appending("store").path, "--min-length", "12"],
            environment: ["GANGWAY_KDF_ROUNDS": "1000"]
        )
        #expect(store.waitFor("New passcode: "))
        store.type("Short-1")
        #expect(store.finish() == 6)
        #expect(store.screen.contains("at least 12 characters"), "\(store.screen)")
        #expect(!store.screen.contains("Confirm passcode"), "not asked twice for a passcode refused once")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("store").path))
    }

    @Test("a negative number is read as a value and refused for what it is; --version is the app's version")
    func negativeNumbersAndVersion() async throws {
        let directory = try TemporaryDirectory(prefix: "gangway-negative")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        try await runner.makeEmbeddedServer(in: directory.url)
        let refused = try await runner.run([
            "admin", "policy", "--expires-days", "-1", "--data-dir", directory.url.path,
        ])
        #expect(refused.status == 64, "a bad command line, refused before it is sent: \(refused.standardError)")
        #expect(!refused.standardError.contains("Missing value"))
        #expect(refused.standardError.contains("--expires-days must be between 0"), "\(refused.standardError)")
        let version = try await runner.run(["--version"])
        #expect(version.output == "1.0.0\n")
    }

    @Test(
        "the menus' odd paths: the demo and a cancel from add, offline off at the user picker, the registration and last contact shown offline"
    )
    func menuPaths() async throws {
        let device = try DeviceAppEndToEndTests.Device()
        defer { device.directory.remove() }
        let passcode = DeviceAppEndToEndTests.alicePasscode
        let result = try await device.launch(
            DeviceAppEndToEndTests.aliceOnboards + [
                "add", "2", "1", "1", passcode,  // the demo, back, alice again
                "add", "1", "", "1", passcode,  // a sign-in left empty
                "offline on", "switch", "offline off", "1", passcode, "quit",
            ]
        )
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        #expect(!output.contains("failed:"), "\(output)")
        #expect(output.contains("== Demo mode =="))
        #expect(output.contains("Cancelled: nothing changed."))
        // At the user picker, `offline off` is taken and the picker asked again.
        let picker = output.components(separatedBy: "gangway> switch").last ?? ""
        #expect(picker.contains("Choose [1-2]: offline off\nOnline again"), "\(picker)")
        #expect(!picker.contains("Type a number"))
        #expect(!picker.contains("(offline: 'offline off' to reconnect)"), "online again")
        // Every home screen names the registration, restored or not.
        let homes = output.components(separatedBy: "Signed in:      Alice Martin (alice)").count - 1
        #expect(homes == 4)
        #expect(output.components(separatedBy: "Registration:   ").count - 1 == homes)
    }

    /// What the app printed when alice onboarded and, two and a half seconds later (so that
    /// a contact's time moves on), `later` was typed.
    static func onboardThenLater(_ later: [String]) async throws -> String {
        let device = try DeviceAppEndToEndTests.Device()
        defer { device.directory.remove() }
        let runner = GangwayProcess(deviceKeys: device.directory.appending("unused-keys"))
        let running = try runner.launchCapturing(["--data-dir", device.directory.url.path, "--bcrypt-cost", "4"])
        func type(_ lines: [String]) {
            running.input.fileHandleForWriting.write(Data(lines.map { $0 + "\n" }.joined().utf8))
        }
        type(DeviceAppEndToEndTests.aliceOnboards)
        try await Task.sleep(for: .milliseconds(2_500))
        type(later)
        try running.input.fileHandleForWriting.close()
        running.process.waitUntilExit()
        return String(decoding: running.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test("reading the checks is a server contact: the home screen's last contact moves with it")
    func lastContactMoves() async throws {
        let output = try await Self.onboardThenLater(["home", "quit"])
        let stamps = output.components(separatedBy: ", last contact ").dropFirst().map { String($0.prefix(19)) }
        #expect(stamps.count == 2, "\(output)")
        if stamps.count == 2 { #expect(stamps[1] > stamps[0], "\(stamps)") }
    }

    @Test("offline, the last contact is the one that read the checks shown, never an earlier one")
    func lastContactIsTheReadShown() async throws {
        // The settings are exchanged at onboarding; the checks are read again seconds later,
        // and then shown from the kept copy.
        let output = try await Self.onboardThenLater(["home", "offline on", "home", "quit"])
        func stamps(after marker: String) -> [String] {
            output.components(separatedBy: marker).dropFirst().map { String($0.prefix(19)) }
        }
        let contacts = stamps(after: ", last contact ")
        let kept = stamps(after: " kept from ")
        #expect(contacts.count == 3, "\(output)")
        #expect(kept.count == 1, "\(output)")
        guard contacts.count == 3, kept.count == 1 else { return }
        #expect(contacts[1] > contacts[0], "\(contacts)")
        #expect(kept[0] == contacts[1], "the kept copy is the second read's")
        #expect(contacts[2] == kept[0], "offline, the last contact is the read of the checks shown: \(contacts)")
    }

    @Test("a user whose restore keeps failing can be removed from the device, and the device onboards again")
    func removeAUserWhoseRestoreFails() async throws {
        let device = try DeviceAppEndToEndTests.Device()
        defer { device.directory.remove() }
        let passcode = DeviceAppEndToEndTests.alicePasscode
        await #expect(try device.launch(DeviceAppEndToEndTests.aliceOnboards + ["quit"]).status == 0)
        // Her store's header no longer authenticates: every restore fails.
        let stores = device.directory.appending("device/stores")
        let id = try #require(
            try FileManager.default.contentsOfDirectory(atPath: stores.path).first { $0 != "registry" }
        )
        let queue = try DatabaseQueue(path: stores.appendingPathComponent("\(id)/store.sqlite").path)
        try await queue.write { try $0.execute(sql: "UPDATE header SET mac = zeroblob(32)") }
        try queue.close()

        // Leaving the app at the failure is a failure.
        let left = try await device.launch(["1", passcode, "quit"])
        #expect(left.status == 1, "\(left.output)")
        #expect(left.output.contains("Could not open the app:"))

        let result = try await device.launch(["1", passcode, "again", "1", passcode, "remove", "y", "quit"])
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.output
        #expect(output.components(separatedBy: "Could not open the app:").count == 3, "\(output)")
        #expect(output.contains("2) Remove Alice Martin from this device"))
        #expect(output.contains("stay sealed in the device's outbox"))
        #expect(output.contains("== Welcome =="), "onboarding again")
        #expect(!FileManager.default.fileExists(atPath: stores.appendingPathComponent(id).path), "her store is gone")
    }

    @Test("output cut short by the reader (gangway | head): a quiet end, no backtrace")
    func brokenPipe() throws {
        let directory = try TemporaryDirectory(prefix: "gangway-pipe")
        defer { directory.remove() }
        let runner = GangwayProcess(deviceKeys: directory.appending("keys"))
        let running = try runner.launchCapturing(["--data-dir", directory.url.path, "--bcrypt-cost", "4"])
        let (process, output, errors) = (running.process, running.output, running.errors)
        let first = output.fileHandleForReading.availableData
        #expect(!first.isEmpty)
        try output.fileHandleForReading.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 141)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!text.contains("Fatal error"), "\(text)")
    }
}

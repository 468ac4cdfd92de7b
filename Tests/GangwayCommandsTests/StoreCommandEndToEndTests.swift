import Foundation
import GRDB
import GangwayTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("gangway store, end to end", .tags(.endToEnd), .skipsTags)
struct StoreCommandEndToEndTests {
    let temporary: TemporaryDirectory
    let gangway: GangwayProcess
    let path: String
    let passcode = "Ramp-Check-4711"

    init() throws {
        temporary = try TemporaryDirectory(prefix: "gangway-cli-test")
        gangway = GangwayProcess(deviceKeys: temporary.appending("keys"))
        path = temporary.appending("store").path
    }

    func initStore(_ extra: [String] = []) async throws {
        let result = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin"] + extra,
            lines: [passcode]
        )
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output.hasPrefix("created store "))
    }

    @Test("an empty GANGWAY_DEVICE_KEYS is no setting: keys go to the default directory, never the current one")
    func emptyDeviceKeysVariable() async throws {
        defer { temporary.remove() }
        let home = temporary.appending("home")
        let empty = ["GANGWAY_DEVICE_KEYS": "", "HOME": home.path]
        let created = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin"],
            lines: [passcode],
            extraEnvironment: empty
        )
        #expect(created.status == 0, "\(created.standardError)")
        let keys = try FileManager.default.contentsOfDirectory(
            atPath: home.appendingPathComponent(".gangway/device-keys").path
        )
        #expect(keys.count == 1 && keys[0].hasSuffix(".device"), "\(keys)")
        let read = try await gangway.run(["store", "info", "--path", path], extraEnvironment: empty)
        #expect(read.output.contains("integrity: verified"), "\(read.output)")
        let option = try await gangway.run(["store", "info", "--path", path, "--device-keys", " "])
        #expect(option.status == 64)
        #expect(option.standardError.contains("--device-keys needs a directory."))
    }

    @Test func putGetListRemoveAndInfo() async throws {
        defer { temporary.remove() }
        try await initStore(["--retry-limit", "4"])
        await #expect(
            try gangway.run(["store", "put", "--path", path, "--passcode-stdin", "fuel", "8200 kg"], lines: [passcode])
                .status == 0
        )
        let binary = Data([0x00, 0x0A, 0xFF, 0x0A, 0x0A, 0x41])
        var input = Data((passcode + "\n").utf8)
        input.append(binary)
        await #expect(
            try gangway.run(["store", "put", "--path", path, "--passcode-stdin", "blob"], input: input).status == 0
        )

        let fuel = try await gangway.run(
            ["store", "get", "--path", path, "--passcode-stdin", "fuel"],
            lines: [passcode]
        )
        #expect(fuel.status == 0)
        #expect(fuel.output == "8200 kg", "printed exactly, with no newline added")
        let blob = try await gangway.run(
            ["store", "get", "--path", path, "--passcode-stdin", "blob"],
            lines: [passcode]
        )
        #expect(blob.standardOutput == binary)

        let list = try await gangway.run(["store", "list", "--path", path, "--passcode-stdin"], lines: [passcode])
        #expect(list.output == "blob\nfuel\n")

        let info = try await gangway.run(["store", "info", "--path", path])
        #expect(info.status == 0)
        for line in [
            "format version: 1", "key derivation: pbkdf2-hmac-sha256, 1000 rounds", "entries: 2",
            "failed attempts: 0", "tries left: 4", "biometric unlock: off", "protection: passcode",
            "integrity: verified",
        ] {
            #expect(info.output.contains(line), "info lacks \(line)")
        }

        await #expect(
            try gangway.run(["store", "remove", "--path", path, "--passcode-stdin", "fuel"], lines: [passcode]).status
                == 0
        )
        let missing = try await gangway.run(
            ["store", "get", "--path", path, "--passcode-stdin", "fuel"],
            lines: [passcode]
        )
        #expect(missing.status == 7)
        #expect(missing.standardError == "gangway: error: key not found: fuel\n")
        await #expect(
            try gangway.run(["store", "remove", "--path", path, "--passcode-stdin", "fuel"], lines: [passcode]).status
                == 7
        )
    }

    @Test func wrongPasscodesReportTriesLeftThenEraseTheStore() async throws {
        defer { temporary.remove() }
        try await initStore(["--retry-limit", "2"])
        // An empty line, or one that is not UTF-8 text, is no passcode: nothing is tried or counted.
        let empty = try await gangway.run(["store", "list", "--path", path, "--passcode-stdin"], lines: [""])
        #expect(empty.status == 1 && empty.standardError.contains("no passcode was given"), "\(empty)")
        let notText = try await gangway.run(
            ["store", "list", "--path", path, "--passcode-stdin"],
            input: Data([0x57, 0xFF, 0xFE, 0x0A])
        )
        #expect(notText.status == 1 && notText.standardError.contains("not UTF-8 text"), "\(notText)")
        await #expect(try gangway.run(["store", "info", "--path", path]).output.contains("failed attempts: 0"))
        let first = try await gangway.run(
            ["store", "list", "--path", path, "--passcode-stdin"],
            lines: ["Wrong-Guess-1"]
        )
        #expect(first.status == 3)
        #expect(first.standardError == "gangway: error: wrong passcode (1 try left)\n")
        let info = try await gangway.run(["store", "info", "--path", path])
        #expect(info.output.contains("failed attempts: 1"))
        #expect(info.output.contains("tries left: 1"))
        let second = try await gangway.run(
            ["store", "list", "--path", path, "--passcode-stdin"],
            lines: ["Wrong-Guess-2"]
        )
        #expect(second.status == 4)
        #expect(second.standardError.contains("erased"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aPasscodeTheePolicyRejectsExitsWithSix() async throws {
        defer { temporary.remove() }
        let result = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin", "--min-length", "6", "--digits-only"],
            lines: ["12a"]
        )
        #expect(result.status == 6)
        #expect(
            result.standardError
                == "gangway: error: passcode rejected by the policy: at least 6 characters; digits only\n"
        )
        #expect(!FileManager.default.fileExists(atPath: path), "a refused init leaves nothing behind")
        let common = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin", "--min-length", "6", "--digits-only"],
            lines: ["123456"]
        )
        #expect(common.status == 6)
        let good = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin", "--min-length", "6", "--digits-only"],
            lines: ["583917"]
        )
        #expect(good.status == 0)
    }

    @Test func passwdTakesTheCurrentThenTheNewPasscode() async throws {
        defer { temporary.remove() }
        try await initStore()
        await #expect(
            try gangway.run(["store", "put", "--path", path, "--passcode-stdin", "k", "v"], lines: [passcode]).status
                == 0
        )
        let wrong = try await gangway.run(
            ["store", "passwd", "--path", path, "--passcode-stdin"],
            lines: ["Not-It-123", "Next-Passcode-9"]
        )
        #expect(wrong.status == 3)
        let rejected = try await gangway.run(
            ["store", "passwd", "--path", path, "--passcode-stdin"],
            lines: [passcode, "short"]
        )
        #expect(rejected.status == 6)
        let changed = try await gangway.run(
            ["store", "passwd", "--path", path, "--passcode-stdin"],
            lines: [passcode, "Next-Passcode-9"]
        )
        #expect(changed.status == 0, "\(changed.standardError)")
        await #expect(
            try gangway.run(["store", "get", "--path", path, "--passcode-stdin", "k"], lines: [passcode]).status == 3
        )
        await #expect(
            try gangway.run(["store", "get", "--path", path, "--passcode-stdin", "k"], lines: ["Next-Passcode-9"])
                .output == "v"
        )
    }

    @Test(arguments: [
        "passcode-slot-written", "passcode-header-written", "passcode-history-written", "passcode-committed",
    ])
    func aProcessKilledDuringPasswdLeavesOneOfThePasscodesWorking(point: String) async throws {
        defer { temporary.remove() }
        try await initStore()
        await #expect(
            try gangway.run(["store", "put", "--path", path, "--passcode-stdin", "k", "v"], lines: [passcode]).status
                == 0
        )
        let killed = try await gangway.run(
            ["store", "passwd", "--path", path, "--passcode-stdin"],
            lines: [passcode, "Next-Passcode-9"],
            extraEnvironment: ["GANGWAY_TEST_CRASH_AT": point]
        )
        #expect(killed.status == 86, "the process died at \(point)")
        let expected = point == "passcode-committed" ? "Next-Passcode-9" : passcode
        let other = point == "passcode-committed" ? passcode : "Next-Passcode-9"
        let get = try await gangway.run(["store", "get", "--path", path, "--passcode-stdin", "k"], lines: [expected])
        #expect(get.status == 0, "\(get.standardError)")
        #expect(get.output == "v")
        await #expect(
            try gangway.run(["store", "get", "--path", path, "--passcode-stdin", "k"], lines: [other]).status == 3
        )
    }

    /// Rounds that make one key derivation last two seconds or more, long enough to watch
    /// while the whole suite loads both cores (at half as many, a guess once ended before
    /// another process had read its count).
    static let slowRounds = ["GANGWAY_KDF_ROUNDS": "6000000"]

    /// Starts a wrong guess with a slow key derivation, waits until another process reads
    /// the guess's count from the files while the guess still runs, then kills the guess.
    /// Returns whether the count was seen before the guess ended.
    func killAGuessDuringItsKeyDerivation(countedAs failures: Int) async throws -> Bool {
        let guess = try gangway.launch(
            ["store", "get", "--path", path, "--passcode-stdin", "k"],
            lines: ["Wrong-Passcode-1"],
            extraEnvironment: Self.slowRounds
        )
        var seenWhileRunning = false
        while guess.isRunning {
            // At once, not after other tests' programs: the guess is running now.
            let info = try await gangway.run(["store", "info", "--path", path], takingTurns: false)
            if info.output.contains("failed attempts: \(failures)\n") {
                seenWhileRunning = guess.isRunning
                break
            }
        }
        kill(guess.processIdentifier, SIGKILL)
        try await guess.exit()
        #expect(guess.terminationReason == .uncaughtSignal, "the guess was killed, it did not finish")
        return seenWhileRunning
    }

    @Test func theAttemptIsOnDiskWhileTheKeyDerivationRuns() async throws {
        defer { temporary.remove() }
        let created = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin", "--retry-limit", "3"],
            lines: [passcode],
            extraEnvironment: Self.slowRounds
        )
        #expect(created.status == 0, "\(created.standardError)")
        await #expect(try killAGuessDuringItsKeyDerivation(countedAs: 1), "the count was read while the guess derived")
        let info = try await gangway.run(["store", "info", "--path", path])
        #expect(info.output.contains("failed attempts: 1\n"))
        #expect(info.output.contains("tries left: 2\n"), "the killed guess spent its try")
    }

    @Test func aProcessKilledDuringTheLastTryLeavesAStoreThatTheNextOpenErases() async throws {
        defer { temporary.remove() }
        let created = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin", "--retry-limit", "1"],
            lines: [passcode],
            extraEnvironment: Self.slowRounds
        )
        #expect(created.status == 0, "\(created.standardError)")
        await #expect(try killAGuessDuringItsKeyDerivation(countedAs: 1))
        #expect(FileManager.default.fileExists(atPath: path))
        // Even the right passcode does not open it: the try was spent, so the store is erased.
        let next = try await gangway.run(["store", "get", "--path", path, "--passcode-stdin", "k"], lines: [passcode])
        #expect(next.status == 4, "\(next.standardError)")
        #expect(!FileManager.default.fileExists(atPath: path + "/store.sqlite"))
    }

    @Test func aDamagedValueExitsWithFive() async throws {
        defer { temporary.remove() }
        try await initStore()
        await #expect(
            try gangway.run(["store", "put", "--path", path, "--passcode-stdin", "fuel", "8200 kg"], lines: [passcode])
                .status == 0
        )
        let queue = try DatabaseQueue(path: path + "/store.sqlite")
        try await queue.write { db in
            var value = try Data.fetchOne(db, sql: "SELECT sealed FROM entry")!
            value[value.startIndex + 14] ^= 0x80
            try db.execute(sql: "UPDATE entry SET sealed = ?", arguments: [value])
        }
        try queue.close()
        let result = try await gangway.run(
            ["store", "get", "--path", path, "--passcode-stdin", "fuel"],
            lines: [passcode]
        )
        #expect(result.status == 5)
        #expect(
            result.standardError
                == "gangway: error: stored data failed its integrity check (a value failed authentication)\n"
        )
    }

    @Test("info on a store whose header was altered says so, and exits with five")
    func infoOfAnAlteredStoreExitsWithFive() async throws {
        defer { temporary.remove() }
        try await initStore()
        let queue = try DatabaseQueue(path: path + "/store.sqlite")
        try await queue.write { db in
            var mac = try Data.fetchOne(db, sql: "SELECT mac FROM header")!
            mac[mac.startIndex] ^= 0x01
            try db.execute(sql: "UPDATE header SET mac = ?", arguments: [mac])
        }
        try queue.close()
        let info = try await gangway.run(["store", "info", "--path", path])
        #expect(info.output.contains("integrity: FAILED"), "\(info.output)")
        #expect(info.status == 5)
    }

    @Test("an argument that is not UTF-8 is a bad command line: two such keys never become one")
    func argumentsThatAreNotText() async throws {
        defer { temporary.remove() }
        try await initStore()
        // Through a shell, which passes the bytes as they are.
        var shell = gangway
        shell.executable = URL(fileURLWithPath: "/bin/sh")
        let script = #"exec "$0" store put --path "$1" --passcode-stdin "$(printf 'k\377')" first"#
        let put = try await shell.run(["-c", script, GangwayProcess.executable.path, path], lines: [passcode])
        #expect(put.status == 64, "\(put.standardError)")
        #expect(put.standardError == "gangway: error: argument 6 is not UTF-8 text; nothing was done.\n")
        let list = try await gangway.run(["store", "list", "--path", path, "--passcode-stdin"], lines: [passcode])
        #expect(list.output.isEmpty, "nothing was put: \(list.output)")
    }

    @Test("info on a directory whose database file is empty says it is no store, and leaves the file empty")
    func anEmptyDatabaseFileIsNoStore() async throws {
        defer { temporary.remove() }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o700)
        let file = path + "/store.sqlite"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let info = try await gangway.run(["store", "info", "--path", path])
        #expect(info.status == 1, "\(info.standardError)")
        #expect(info.standardError.contains("store.sqlite is empty"), "\(info.standardError)")
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int == 0)
    }

    @Test func noPasscodeModeAsksForNothing() async throws {
        defer { temporary.remove() }
        // A passcode policy with no passcode is a contradiction, not something to ignore.
        for extra in [
            ["--policy-json", "/nonexistent"], ["--min-length", "0"], ["--retry-limit", "-5"], ["--digits-only"],
            ["--passcode-stdin"],
        ] {
            let refused = try await gangway.run(["store", "init", "--path", path, "--no-passcode"] + extra)
            #expect(refused.status == 64, "\(extra) \(refused.standardError)")
            #expect(refused.standardError.contains("\(extra[0]) is for a store with a passcode"))
            #expect(!FileManager.default.fileExists(atPath: path), "\(extra): nothing is created")
        }
        await #expect(try gangway.run(["store", "init", "--path", path, "--no-passcode"]).status == 0)
        await #expect(try gangway.run(["store", "put", "--path", path, "k", "v"]).status == 0)
        await #expect(try gangway.run(["store", "get", "--path", path, "k"]).output == "v")
        let info = try await gangway.run(["store", "info", "--path", path])
        #expect(info.output.contains("protection: no passcode (device key)"))
        await #expect(
            try gangway.run(["store", "passwd", "--path", path, "--passcode-stdin"], lines: ["a", "b"]).status == 1
        )
    }

    @Test func badInputsGetOneLineAndAnExitCode() async throws {
        defer { temporary.remove() }
        let missing = try await gangway.run(["store", "info", "--path", path])
        #expect(missing.status == 1)
        #expect(missing.standardError == "gangway: error: no store found\n")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let notAStore = try await gangway.run(["store", "list", "--path", path, "--passcode-stdin"], lines: [passcode])
        #expect(notAStore.status == 1)
        #expect(notAStore.standardError == "gangway: error: not a Gangway store (the directory has no store.sqlite)\n")
        try FileManager.default.removeItem(atPath: path)
        try await initStore()
        let noTerminal = try await gangway.run(["store", "list", "--path", path])
        #expect(noTerminal.status == 1)
        #expect(noTerminal.standardError.contains("pass --passcode-stdin"))
        let noInput = try await gangway.run(["store", "list", "--path", path, "--passcode-stdin"])
        #expect(noInput.status == 1)
        let twice = try await gangway.run(["store", "init", "--path", path, "--passcode-stdin"], lines: [passcode])
        #expect(twice.status == 1)
        #expect(twice.standardError.contains("already exists"))
        let badPolicy = try await gangway.run(
            ["store", "init", "--path", temporary.appending("x").path, "--passcode-stdin", "--retry-limit", "0"],
            lines: [passcode]
        )
        #expect(badPolicy.status == 64, "a bad command line")
        #expect(badPolicy.standardError.contains("--retry-limit: must be between 1 and 1000"))
        await #expect(try gangway.run(["store", "frobnicate"]).status == 64)
        for result in [missing, notAStore, noTerminal, noInput, twice, badPolicy] {
            #expect(result.standardError.split(separator: "\n").count == 1, "one line: \(result.standardError)")
        }
    }

    @Test("init refuses a directory others can write, says why, and leaves it where and as it was")
    func initLeavesAnUnsafeDirectory() async throws {
        defer { temporary.remove() }
        let shared = temporary.appending("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        chmod(shared.path, 0o777)
        defer { chmod(shared.path, 0o700) }
        let result = try await gangway.run(
            ["store", "init", "--path", shared.path, "--passcode-stdin"],
            lines: [passcode]
        )
        #expect(result.status != 0)
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(result.standardError.contains("others can write to it (mode 0777)"), "\(result.standardError)")
        let attributes = try FileManager.default.attributesOfItem(atPath: shared.path)
        #expect(attributes[.type] as? FileAttributeType == .typeDirectory, "the directory is still there")
        #expect(attributes[.posixPermissions] as? Int == 0o777, "its mode is as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared.path).isEmpty)
        #expect(
            !FileManager.default.fileExists(atPath: gangway.deviceKeys.path),
            "the device keys' directory is not made for a store that is refused"
        )
    }

    @Test(
        "an empty key is a bad command line, refused before a passcode is read; a listed key cannot drive the terminal"
    )
    func keysOnTheCommandLine() async throws {
        defer { temporary.remove() }
        try await initStore()
        for command in ["put", "get", "remove"] {
            let empty = try await gangway.run(
                ["store", command, "--path", path, "--passcode-stdin", ""] + (command == "put" ? ["v"] : []),
                lines: [passcode]
            )
            #expect(empty.status == 64, "\(command): \(empty.standardError)")
            #expect(empty.standardError.contains("a key name cannot be empty"), "\(empty.standardError)")
        }
        let key = "title\u{1B}]0;owned\u{07}\nsecond line"
        let put = try await gangway.run(
            ["store", "put", "--path", path, "--passcode-stdin", key, "v"],
            lines: [passcode]
        )
        #expect(put.status == 0, "\(put.standardError)")
        // A key that holds the text of an escape is not shown like the escape itself.
        let lookalike = #"title\u{1B}]0;owned\u{7}\u{A}second line"#
        let second = try await gangway.run(
            ["store", "put", "--path", path, "--passcode-stdin", lookalike, "v"],
            lines: [passcode]
        )
        #expect(second.status == 0, "\(second.standardError)")
        let list = try await gangway.run(["store", "list", "--path", path, "--passcode-stdin"], lines: [passcode])
        #expect(
            Set(list.output.split(separator: "\n")) == [
                #"title\u{1B}]0;owned\u{7}\u{A}second line"#, #"title\\u{1B}]0;owned\\u{7}\\u{A}second line"#,
            ],
            "\(list.output.debugDescription)"
        )
        #expect(!list.output.contains("\u{1B}"))
        let destroy = try await gangway.run(["store", "destroy", "--path", path, "--passcode-stdin"])
        #expect(destroy.status == 64, "destroy asks no passcode, so it takes no --passcode-stdin")
    }

    @Test func destroyRemovesTheStoreAndItsDeviceKey() async throws {
        defer { temporary.remove() }
        try await initStore()
        #expect(try FileManager.default.contentsOfDirectory(atPath: gangway.deviceKeys.path).count == 1)
        let result = try await gangway.run(["store", "destroy", "--path", path])
        #expect(result.status == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: gangway.deviceKeys.path).isEmpty)
        await #expect(try gangway.run(["store", "destroy", "--path", path]).status == 1)
    }

    @Test("a store path that is a symbolic link: a refused init and a destroy leave the link, which the person made")
    func symbolicLinksStay() async throws {
        defer { temporary.remove() }
        let manager = FileManager.default
        let dangling = temporary.appending("dangling")
        try manager.createSymbolicLink(atPath: dangling.path, withDestinationPath: temporary.appending("nowhere").path)
        let refused = try await gangway.run(
            ["store", "init", "--path", dangling.path, "--passcode-stdin"],
            lines: [passcode]
        )
        #expect(refused.status != 0)
        #expect(try manager.destinationOfSymbolicLink(atPath: dangling.path) == temporary.appending("nowhere").path)

        try await initStore()
        let link = temporary.appending("link")
        try manager.createSymbolicLink(atPath: link.path, withDestinationPath: path)
        let destroyed = try await gangway.run(["store", "destroy", "--path", link.path])
        #expect(destroyed.status == 0, "\(destroyed.standardError)")
        #expect(try manager.destinationOfSymbolicLink(atPath: link.path) == path, "the link stays")
        #expect(!manager.fileExists(atPath: path + "/store.sqlite"), "the store's files are gone")
        #expect(try manager.contentsOfDirectory(atPath: gangway.deviceKeys.path).isEmpty)
    }

    @Test("two passcode changes at once: one is made; the other says it was not, and its passcode opens nothing")
    func concurrentPasscodeChanges() async throws {
        defer { temporary.remove() }
        try await initStore()
        let arguments = ["store", "passwd", "--path", path, "--passcode-stdin"]
        async let first = gangway.run(arguments, lines: [passcode, "Passcode-Of-B-1"])
        async let second = gangway.run(arguments, lines: [passcode, "Passcode-Of-C-2"])
        let results = try await [("Passcode-Of-B-1", first), ("Passcode-Of-C-2", second)]
        let made = results.filter { $0.1.status == 0 }
        #expect(made.count == 1, "\(results.map { ($0.1.status, $0.1.standardError) })")
        for (chosen, result) in results {
            let opens = try await gangway.run(["store", "list", "--path", path, "--passcode-stdin"], lines: [chosen])
            #expect((opens.status == 0) == (result.status == 0), "\(chosen): \(opens.standardError)")
            if result.status != 0 {
                // Whether the other change came before this one's check or after it.
                #expect(
                    result.standardError.contains("the passcode was changed elsewhere meanwhile")
                        || result.status == 3,
                    "\(result.standardError)"
                )
            }
        }
    }

    @Test("reads at once with the right passcode are counted one after the other: none is a wrong try, none erases")
    func concurrentRightPasscodes() async throws {
        defer { temporary.remove() }
        // The standard key derivation, so that the reads overlap as they do for a person.
        var gangway = gangway
        gangway.environment["GANGWAY_KDF_ROUNDS"] = ""
        let created = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin", "--retry-limit", "3"],
            lines: [passcode]
        )
        #expect(created.status == 0, "\(created.standardError)")
        let put = try await gangway.run(
            ["store", "put", "--path", path, "--passcode-stdin", "fuel", "8200 kg"],
            lines: [passcode]
        )
        #expect(put.status == 0, "\(put.standardError)")
        let arguments = ["store", "get", "--path", path, "--passcode-stdin", "fuel"]
        let reader = gangway
        let results = try await withThrowingTaskGroup(of: GangwayProcess.Result.self) { group in
            for _ in 0..<8 { group.addTask { try await reader.run(arguments, lines: [passcode]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        for result in results {
            #expect(result.status == 0 && result.output == "8200 kg", "\(result.status): \(result.standardError)")
        }
        // Nothing was counted: two wrong passcodes still leave the last try.
        let wrong = try await gangway.run(
            ["store", "list", "--path", path, "--passcode-stdin"],
            lines: ["Wrong-Guess-1"]
        )
        #expect(wrong.standardError.contains("2 tries left"), "\(wrong.standardError)")
    }

    @Test func theStandardKeyDerivationIsSixHundredThousandRounds() async throws {
        defer { temporary.remove() }
        let result = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin"],
            lines: [passcode],
            extraEnvironment: ["GANGWAY_KDF_ROUNDS": ""]
        )
        #expect(result.status == 0)
        await #expect(
            try gangway.run(["store", "info", "--path", path]).output.contains("pbkdf2-hmac-sha256, 600000 rounds")
        )
    }

    @Test func noPasscodeOrValueReachesOutputOrErrors() async throws {
        defer { temporary.remove() }
        try await initStore()
        var transcript = ""
        for result in [
            try await gangway.run(
                ["store", "put", "--path", path, "--passcode-stdin", "k", "SECRET-VALUE-77"],
                lines: [passcode]
            ),
            try await gangway.run(["store", "list", "--path", path, "--passcode-stdin"], lines: ["Guess-Passcode-1"]),
            try await gangway.run(["store", "info", "--path", path]),
            try await gangway.run(["store", "passwd", "--path", path, "--passcode-stdin"], lines: [passcode, "Weak"]),
        ] {
            transcript += result.output + result.standardError
        }
        for secret in [passcode, "Guess-Passcode-1", "SECRET-VALUE-77", "Weak"] {
            #expect(!transcript.contains(secret))
        }
    }

    @Test func initReadsThePolicyFromServerSettings() async throws {
        defer { temporary.remove() }
        let settings = temporary.appending("settings.json")
        try Data(
            #"{"mobileservices": {"settingsExchange": {"passwordPolicy": {"passwordPolicyMinLength": "10", "passwordPolicyRetryLimit": 3}}}}"#
                .utf8
        ).write(to: settings)
        let short = try await gangway.run(
            ["store", "init", "--path", path, "--passcode-stdin", "--policy-json", settings.path],
            lines: ["Short-1"]
        )
        #expect(short.status == 6)
        #expect(short.standardError.contains("at least 10 characters"))
        try await initStore(["--policy-json", settings.path])
        await #expect(try gangway.run(["store", "info", "--path", path]).output.contains("tries left: 3"))

        let off = temporary.appending("off.json")
        try Data(#"{"passwordPolicy": {"passwordPolicyEnabled": false}}"#.utf8).write(to: off)
        let disabled = try await gangway.run(
            ["store", "init", "--path", temporary.appending("b").path, "--passcode-stdin", "--policy-json", off.path],
            lines: [passcode]
        )
        #expect(disabled.status == 1)
        #expect(disabled.standardError.contains("--no-passcode"))
        // A document with no policy in it is not one that turns the passcode off.
        let empty = temporary.appending("empty.json")
        try Data(#"{"minLength": 4}"#.utf8).write(to: empty)
        let none = try await gangway.run(
            [
                "store", "init", "--path", temporary.appending("d").path, "--passcode-stdin", "--policy-json",
                empty.path,
            ],
            lines: [passcode]
        )
        #expect(none.status == 1)
        #expect(none.standardError.contains("empty.json holds no passcode policy"), "\(none.standardError)")
        #expect(!FileManager.default.fileExists(atPath: temporary.appending("d").path))

        let broken = temporary.appending("broken.json")
        try Data("{not json".utf8).write(to: broken)
        let malformed = try await gangway.run(
            [
                "store", "init", "--path", temporary.appending("c").path, "--passcode-stdin", "--policy-json",
                broken.path,
            ],
            lines: [passcode]
        )
        #expect(malformed.status == 1)
        #expect(
            malformed.standardError
                == "gangway: error: malformed passcode policy JSON: the document is not valid JSON\n"
        )
        #expect(!FileManager.default.fileExists(atPath: temporary.appending("c").path))
    }
}

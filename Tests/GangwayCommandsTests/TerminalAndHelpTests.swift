import ArgumentParser
import Foundation
import GangwayTerminal
import GangwayTesting
import Testing

@testable import GangwayCommands

@Suite("gangway store on a terminal, and its help", .tags(.endToEnd), .skipsTags)
struct TerminalAndHelpTests {
    @Test func passcodesTypedAtATerminalAreNeverEchoed() throws {
        let temporary = try TemporaryDirectory(prefix: "gangway-pty-test")
        defer { temporary.remove() }
        let path = temporary.appending("store").path
        let environment = ["GANGWAY_DEVICE_KEYS": temporary.appending("keys").path, "GANGWAY_KDF_ROUNDS": "1000"]
        let passcode = "Typed-Secret-913"

        let create = try PseudoTerminalSession(arguments: ["store", "init", "--path", path], environment: environment)
        #expect(create.waitFor("New passcode: "))
        create.type(passcode)
        #expect(create.waitFor("Confirm passcode: "))
        create.type(passcode)
        #expect(create.finish() == 0)
        #expect(create.screen.contains("created store"))
        #expect(!create.screen.contains(passcode), "the terminal showed the passcode: \(create.screen)")

        let put = try PseudoTerminalSession(
            arguments: ["store", "put", "--path", path, "gate", "B12"],
            environment: environment
        )
        #expect(put.waitFor("Passcode: "))
        put.type(passcode)
        #expect(put.finish() == 0)
        #expect(!put.screen.contains(passcode))

        let mismatch = try PseudoTerminalSession(
            arguments: ["store", "init", "--path", temporary.appending("other").path],
            environment: environment
        )
        #expect(mismatch.waitFor("New passcode: "))
        mismatch.type(passcode)
        #expect(mismatch.waitFor("Confirm passcode: "))
        mismatch.type("Something-Else-1")
        #expect(mismatch.finish() == 1)
        #expect(mismatch.screen.contains("the passcodes do not match"))
        #expect(!mismatch.screen.contains(passcode) && !mismatch.screen.contains("Something-Else-1"))
    }

    @Test(
        "a mistyped command is named, with the command meant; the shipped binary exits 64 and starts nothing",
        arguments: [
            (["serv", "--port", "1"], "no command 'serv'; did you mean 'serve'?"),
            (["amdin", "users"], "no command 'amdin'; did you mean 'admin'?"),
            (["Store"], "no command 'Store'; did you mean 'store'?"),
            (["st"], "no command 'st'; did you mean 'store'?"),
            (
                ["frobnicate"],
                "no command 'frobnicate'; the commands are app, admin, store, serve (see 'gangway --help')."
            ),
        ]
    )
    func mistypedCommand(arguments: [String], said: String) async throws {
        #expect(GangwayCommand.unknownCommandProblem(arguments) == said)
        let temporary = try TemporaryDirectory(prefix: "gangway-mistyped")
        defer { temporary.remove() }
        var runner = GangwayProcess(deviceKeys: temporary.appending("unused-keys"))
        runner.executable = GangwayProcess.shippedExecutable
        let result = try await runner.run(arguments, extraEnvironment: ["HOME": temporary.url.path])
        #expect(result.status == 64)
        #expect(result.standardError == "gangway: error: \(said)\n", "\(result.standardError)")
        #expect(result.output.isEmpty)
    }

    @Test("a command, an option or help first is no mistyped command")
    func knownFirstArguments() {
        for arguments in [[], ["serve"], ["admin", "users"], ["--server", "http://x"], ["help"], ["-h"], ["app"]] {
            #expect(GangwayCommand.unknownCommandProblem(arguments) == nil, "\(arguments)")
        }
    }

    @Test("the word meant: the only one begun, else the nearest within a third of its length")
    func closestWord() {
        let words = ["lock", "resume", "switch", "status", "sync", "pending", "passcode"]
        #expect(ClosestWord.to("stauts", among: words) == "status")
        #expect(ClosestWord.to("syncc", among: words) == "sync")
        #expect(ClosestWord.to("pend", among: words) == "pending")
        #expect(ClosestWord.to("s", among: words) == nil, "one letter begins several")
        #expect(ClosestWord.to("xyzzy", among: words) == nil)
        #expect(ClosestWord.to("", among: words) == nil)
        #expect(ClosestWord.distance("ab", "ba") == 1)
        #expect(ClosestWord.distance("kitten", "sitting") == 3)
    }

    @Test func storeHelpIsComplete() {
        let help = GangwayCommand.helpMessage(for: StoreCommand.self, columns: 80)
        #expect(help == Self.expectedStoreHelp)
    }

    static let expectedStoreHelp = """
        OVERVIEW: Create, read, write and inspect an encrypted secure store.

        A store is a directory holding an encrypted SQLite database. Its device key
        (which authenticates the records read before unlock) is kept apart from it, in
        the device key directory (--device-keys, default $GANGWAY_DEVICE_KEYS or
        ~/.gangway/device-keys).

        Passcodes are read from the terminal without echo. With --passcode-stdin they
        are read from standard input, one per line (for passwd: the current one, then
        the new one); for put without VALUE, the rest of standard input is the value.

        Exit codes:
          0  success
          1  any other failure (the message says which)
          3  wrong passcode
          4  the store was erased after too many wrong passcodes
          5  stored data failed its integrity check, or was tampered with
          6  the passcode was rejected by the policy
          7  key not found
         64  invalid command line

        USAGE: gangway store <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          init                    Create a store protected by a passcode (or by the
                                  device key alone with --no-passcode).
          put                     Store a value under a key (the value from standard
                                  input when VALUE is left out).
          get                     Print the value stored under a key, exactly as stored.
          list                    List the keys, one per line.
          remove                  Remove a key and its value.
          passwd                  Change the passcode (current, then new); the data key
                                  is re-wrapped, not the data.
          info                    Describe the store without unlocking it.
          destroy                 Destroy the store: key slots first, then its device
                                  keys, then its files.
          demo                    Show the secure store at work in a temporary
                                  directory, step by step.

          See 'gangway help store <subcommand>' for detailed help.
        """
}

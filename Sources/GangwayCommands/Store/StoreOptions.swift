import ArgumentParser
import Foundation
import GangwayPolicy
@_spi(Testing) import GangwayStore
import GangwayTerminal
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Options every `gangway store` subcommand shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store's directory.", valueName: "dir"))
    var path: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where device keys are kept (default: $GANGWAY_DEVICE_KEYS or ~/.gangway/device-keys).",
            valueName: "dir"
        )
    )
    var deviceKeys: String?

    func validate() throws {
        try DirectoryOption.validate(path, option: "--path")
        if let deviceKeys { try DirectoryOption.validate(deviceKeys, option: "--device-keys") }
    }

    /// The store's location with the environment the command runs in.
    func location() -> SecureStoreLocation {
        SecureStoreLocation(
            directory: URL(fileURLWithPath: path),
            environment: Self.environment(deviceKeys: deviceKeys)
        )
    }

    static func environment(deviceKeys: String?) -> SecureStoreEnvironment {
        let variables = ProcessInfo.processInfo.environment
        // An empty variable is no setting: it must not put keys in the current directory.
        let fromEnvironment = variables["GANGWAY_DEVICE_KEYS"].flatMap {
            $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0
        }
        let directory = deviceKeys ?? fromEnvironment ?? GangwayDirectory.path("device-keys")
        var logger = Logger(label: "gangway.store")
        logger.logLevel = LogLevelVariable.level ?? .error
        let hooks = TestHooks.current
        var environment = SecureStoreEnvironment(
            deviceKeys: FileDeviceKeyStore(directory: URL(fileURLWithPath: directory)),
            passcodeRounds: hooks?.passcodeRounds ?? PasscodeKeyDerivation.defaultRounds,
            logger: logger
        )
        // End-to-end tests kill the process at a named point to prove a crash there
        // loses nothing; the process ends at once, as if the power went.
        if let crashPoint = hooks?.crashPoint {
            environment.faultInjector = { point in
                if point.rawValue == crashPoint { _exit(86) }
            }
        }
        return environment
    }
}

/// How the subcommands that ask a passcode read it; `info` and `destroy` ask none (a
/// person who forgot the passcode can still destroy the store and start again).
struct PasscodeOptions: ParsableArguments {
    @Flag(name: .long, help: "Read passcodes from standard input, one per line, instead of the terminal.")
    var passcodeStdin = false
}

/// Where passcodes come from: the terminal without echo (a dot per key), or standard
/// input lines. Prompts go to standard error, so standard output carries only values.
struct PasscodeSource {
    let console: Console
    let fromStandardInput: Bool

    init(_ options: PasscodeOptions, console: Console) {
        self.console = console
        self.fromStandardInput = options.passcodeStdin
    }

    /// Reads one passcode; an empty one is no passcode, and is never tried (it would
    /// count as a wrong one).
    func read(prompt: String) async throws -> Secret {
        let passcode = try await readAny(prompt: prompt)
        guard !passcode.isEmpty else { throw CommandFailure("no passcode was given; nothing was changed.") }
        return passcode
    }

    private func readAny(prompt: String) async throws -> Secret {
        if fromStandardInput {
            let line: String?
            do {
                line = try await console.readLine()
            } catch {
                throw CommandFailure("a passcode line on standard input is not UTF-8 text; nothing was changed.")
            }
            guard let line else {
                throw CommandFailure("standard input ended before the passcode (\(prompt.lowercased()))")
            }
            return Secret(line)
        }
        guard console.mode == .interactive else {
            throw CommandFailure("standard input is not a terminal: pass --passcode-stdin to read passcodes from it")
        }
        do {
            return try await console.askSecret("\(prompt): ")
        } catch {
            throw CommandFailure("no passcode entered")
        }
    }

    /// Reads a new passcode; on a terminal asks twice and checks the two match. A
    /// passcode `policy` refuses is refused at once, before the confirmation is asked.
    func readNew(prompt: String, policy: PasscodePolicy?) async throws -> Secret {
        let passcode = try await read(prompt: prompt)
        if let evaluation = policy?.evaluate(passcode), !evaluation.isAcceptable {
            throw SecureStoreError.passcodeRejected(evaluation.failedRules)
        }
        if !fromStandardInput {
            let confirmation = try await read(prompt: "Confirm passcode")
            guard confirmation == passcode else { throw CommandFailure("the passcodes do not match") }
        }
        return passcode
    }
}

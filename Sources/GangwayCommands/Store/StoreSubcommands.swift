import ArgumentParser
import Foundation
import GangwayPolicy
import GangwayProtocol
import GangwayStore
import GangwayTerminal

/// `gangway store init`
struct StoreInit: StoreSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a store protected by a passcode (or by the device key alone with --no-passcode)."
    )

    @OptionGroup var options: StoreOptions
    @OptionGroup var passcodes: PasscodeOptions

    @Option(parsing: .unconditional, help: "The fewest characters a passcode may have.")
    var minLength: Int?

    @Flag(help: "Passcodes may contain only the digits 0 to 9.")
    var digitsOnly = false

    @Option(parsing: .unconditional, help: "Wrong passcodes in a row that erase the store.")
    var retryLimit: Int?

    @Flag(help: "Protect the store with the device key only; no passcode is asked.")
    var noPasscode = false

    @Option(
        help: ArgumentHelp(
            "Read the policy from a server settings JSON file; the options above override it.",
            valueName: "file"
        )
    )
    var policyJson: String?

    func perform() async throws {
        // A policy or a passcode with --no-passcode would be ignored: the command line
        // says two things, and neither is guessed.
        let passcodeOptions = [
            minLength.map { _ in "--min-length" }, digitsOnly ? "--digits-only" : nil,
            retryLimit.map { _ in "--retry-limit" }, policyJson.map { _ in "--policy-json" },
            passcodes.passcodeStdin ? "--passcode-stdin" : nil,
        ]
        if noPasscode, let option = passcodeOptions.compactMap({ $0 }).first {
            throw CommandFailure(
                "\(option) is for a store with a passcode, and --no-passcode makes one without; give one or the "
                    + "other. Nothing was created.",
                code: ExitCode.validationFailure.rawValue
            )
        }
        let location = options.location()
        if location.exists { throw CommandFailure("a store already exists at \(options.path)") }
        let store: SecureStore
        if noPasscode {
            store = try location.create(protection: .noPasscode)
        } else {
            let policy = try makePolicy()
            let source = PasscodeSource(passcodes, console: .prompting())
            let passcode = try await source.readNew(prompt: "New passcode", policy: policy)
            store = try location.create(protection: .passcode(passcode), policy: policy)
        }
        defer { store.close() }
        print("created store \(store.id.uuidString.lowercased()) at \(options.path)")
    }

    private func makePolicy() throws -> PasscodePolicy {
        var policy = PasscodePolicy.standard
        if let policyJson {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: policyJson))
            } catch {
                throw CommandFailure("cannot read \(policyJson)")
            }
            guard let parsed = try PasscodePolicy.fromSettings(data) else {
                throw CommandFailure(
                    "\(TextRules.shown(policyJson, limit: 200)) holds no passcode policy (passwordPolicy…), or one "
                        + "that turns the passcode off; nothing was created. For a store without a passcode, use "
                        + "--no-passcode."
                )
            }
            policy = parsed
        }
        if let minLength { policy.minimumLength = minLength }
        if digitsOnly { policy.digitsOnly = true }
        if let retryLimit { policy.retryLimit = retryLimit }
        do {
            return try policy.validated()
        } catch {
            // A value the command line gave is named by its option.
            let given: [String: String?] = [
                PasscodePolicy.SettingsKey.minimumLength: minLength.map { _ in "--min-length" },
                PasscodePolicy.SettingsKey.retryLimit: retryLimit.map { _ in "--retry-limit" },
                PasscodePolicy.SettingsKey.digitsOnly: digitsOnly ? "--digits-only" : nil,
            ]
            if let key = error.key, let option = given[key] ?? nil {
                // A value the command line gave out of range is a bad command line.
                throw CommandFailure("\(option): \(error.reason)", code: ExitCode.validationFailure.rawValue)
            }
            throw CommandFailure(error.description)
        }
    }
}

/// A subcommand that works in the unlocked store: ``withStore(console:_:)`` opens it the
/// way the command line asks (with a passcode, or without one in no-passcode mode), does
/// the work and closes it.
protocol UnlockingSubcommand: StoreSubcommand {
    var options: StoreOptions { get }
    var passcodes: PasscodeOptions { get }
}

extension UnlockingSubcommand {
    func withStore<Result>(
        console: Console = .prompting(),
        _ work: (SecureStore) async throws -> Result
    ) async throws -> Result {
        let location = options.location()
        let store: SecureStore
        if try location.info().isPasscodeProtected {
            let passcode = try await PasscodeSource(passcodes, console: console).read(prompt: "Passcode")
            store = try location.unlock(passcode: passcode)
        } else {
            store = try location.unlockWithoutPasscode()
        }
        defer { store.close() }
        return try await work(store)
    }
}

/// The key a subcommand names: checked by the store's rule before a passcode is asked,
/// and shown escaped when it is not there.
struct KeyArgument: ParsableArguments {
    @Argument(help: "The key.") var key: String

    func validate() throws {
        if let problem = SecureStore.problem(withKey: key) { throw ValidationError("\(problem).") }
    }

    var notFound: CommandFailure {
        CommandFailure(
            "key not found: \(TextRules.unambiguous(key))",
            code: StoreExitCode.keyNotFound
        )
    }
}

/// `gangway store put`
struct StorePut: UnlockingSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Store a value under a key (the value from standard input when VALUE is left out)."
    )

    @OptionGroup var options: StoreOptions
    @OptionGroup var passcodes: PasscodeOptions
    @OptionGroup var key: KeyArgument
    @Argument(help: "The value; read from standard input, exactly, when left out.") var value: String?

    func perform() async throws {
        let console = Console.prompting()
        try await withStore(console: console) { store in
            let data: Data
            if let value { data = Data(value.utf8) } else { data = await console.readToEnd() }
            try store.put(data, forKey: key.key)
        }
    }
}

/// `gangway store get`
struct StoreGet: UnlockingSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the value stored under a key, exactly as stored.",
        discussion:
            "On a terminal a line ending follows the value, so the prompt starts on a line of its own; into a pipe or a file the value goes alone."
    )

    @OptionGroup var options: StoreOptions
    @OptionGroup var passcodes: PasscodeOptions
    @OptionGroup var key: KeyArgument

    func perform() async throws {
        guard let value = try await withStore({ try $0.data(forKey: key.key) }) else { throw key.notFound }
        Console.write(value, to: STDOUT_FILENO)
        if isatty(STDOUT_FILENO) == 1, value.last != UInt8(ascii: "\n") {
            Console.write(Data("\n".utf8), to: STDOUT_FILENO)
        }
    }
}

/// `gangway store list`
struct StoreList: UnlockingSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the keys, one per line.",
        discussion:
            #"A key is shown as the text it holds: a backslash doubled (\\), a control character written out (\u{1B})."#
    )

    @OptionGroup var options: StoreOptions
    @OptionGroup var passcodes: PasscodeOptions

    func perform() async throws {
        // A key is shown as text: one that holds a control character cannot clear the
        // terminal or break the one-per-line list, and one that holds the text `\u{1B}`
        // does not look like one that holds the escape character.
        for key in try await withStore({ try $0.keys() }) {
            print(TextRules.unambiguous(key))
        }
    }
}

/// `gangway store remove`
struct StoreRemove: UnlockingSubcommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a key and its value.")

    @OptionGroup var options: StoreOptions
    @OptionGroup var passcodes: PasscodeOptions
    @OptionGroup var key: KeyArgument

    func perform() async throws {
        guard try await withStore({ try $0.removeValue(forKey: key.key) }) else { throw key.notFound }
    }
}

/// `gangway store passwd`
struct StorePasswd: StoreSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the passcode (current, then new); the data key is re-wrapped, not the data."
    )

    @OptionGroup var options: StoreOptions
    @OptionGroup var passcodes: PasscodeOptions

    func perform() async throws {
        let location = options.location()
        guard try location.info().isPasscodeProtected else { throw SecureStoreError.passcodeNotSet }
        let source = PasscodeSource(passcodes, console: .prompting())
        let current = try await source.read(prompt: "Current passcode")
        let store = try location.unlock(passcode: current)
        defer { store.close() }
        let new = try await source.readNew(prompt: "New passcode", policy: store.policy)
        // The current passcode was just verified by the unlock above.
        try store.setPasscode(new, policy: nil)
        print("passcode changed")
    }
}

/// `gangway store info`
struct StoreInfo: StoreSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe the store without unlocking it."
    )

    @OptionGroup var options: StoreOptions

    func perform() async throws {
        let info = try options.location().info()
        print(StoreInfoFormatter.format(info))
        // What it says is all there is to say; a failed check still ends as one does.
        if case .failed = info.integrity { throw ExitCode(StoreExitCode.integrity) }
    }
}

/// `gangway store destroy`
struct StoreDestroy: StoreSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "destroy",
        abstract: "Destroy the store: key slots first, then its device keys, then its files.",
        discussion: """
            No passcode is asked: a person who forgot theirs can destroy the store and start \
            again. What it held cannot be read afterwards.
            """
    )

    @OptionGroup var options: StoreOptions

    func perform() async throws {
        let location = options.location()
        guard location.exists else { throw CommandFailure("no store at \(options.path)") }
        try location.destroy()
        print("destroyed the store at \(options.path)")
    }
}

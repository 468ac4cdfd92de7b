import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayDemo
import GangwayProtocol
import GangwayScreens
import GangwayStore
import GangwayTerminal

/// `gangway` with no subcommand (or `gangway app`): the device app, against the
/// embedded server or a running one.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract: "Run the device app: the whole onboarding story in the terminal (the default).",
        discussion: """
            Without --server, a mobile-services server runs in this process (SQLite under \
            DIR/server), seeded at first start with a demo app for aircraft ground checks, its \
            checks and two demo users, printed at start. The home screen shows the checks, \
            kept in the user's store for when the server cannot be reached; 'edit' changes \
            one, with or without a network, and 'help' at the prompt lists the rest. The \
            device keeps its stores and keys under DIR/device, so quitting and starting again \
            restores the session. When standard input is not a terminal, answers are read a line \
            at a time and the output is plain text, so every story can be scripted.

            Exit codes: 0 after 'quit' (or the input ending at the home prompt), 1 when the \
            input ends before a screen is done or the app cannot start (the data directory \
            is in use by another Gangway, a server's own, or unsafe; a launch failed and the person quit), \
            64 for a bad command line, 130 after Ctrl-C (143 after SIGTERM, 129 after SIGHUP; \
            the terminal is put back either way).
            """
    )

    @Option(name: .customLong("data-dir"), help: "Where the device and the embedded server keep their data.")
    var dataDirectory = AppCommand.defaultDataDirectory

    @Option(name: .customLong("server"), help: "A running 'gangway serve' to use instead of the embedded server.")
    var serverURL: String?

    @Flag(
        name: .customLong("biometrics"),
        help: "Enrol the simulated fingerprint sensor (used on a personal device only)."
    )
    var biometrics = false

    @Flag(name: .customLong("personal-device"), help: "One user only: no user picker and no 'add user'.")
    var personalDevice = false

    @Flag(
        name: .customLong("plain"),
        help: "Plain text even on a terminal: no colours, passcodes read as lines (never shown)."
    )
    var plain = false

    @Option(
        name: .customLong("bcrypt-cost"),
        parsing: .unconditional,
        help: "bcrypt cost of the embedded server's passwords, \(BcryptCostOption.rangeText)."
    )
    var bcryptCost: UInt8 = BcryptCostOption.default

    @Option(
        name: .customLong("terms"),
        help: ArgumentHelp(
            "A legal text to accept on the welcome screen, as TITLE@VERSION=URL (repeatable).",
            discussion:
                "The welcome screen links each one and goes on only once its box is ticked; the acceptance is recorded in the user's store.",
            valueName: "title@version=url"
        )
    )
    var terms: [String] = []

    @Flag(
        name: .customLong("agreements-after-passcode"),
        help:
            "Ask the licence agreement and consent after the passcode at onboarding (the design guideline's order), not before."
    )
    var agreementsAfterPasscode = false

    @Option(
        name: .customLong("permissions"),
        help: ArgumentHelp(
            "Platform permissions to ask for once at onboarding, after the passcode: camera, location, notifications (comma-separated or repeated).",
            discussion:
                "Each gets the app's page (Allow or Not Now), then the simulated device's own question; the device keeps the answers in DIR/device/permissions.json for all its users. 'permissions' at the home prompt lists them and plays the device's settings.",
            valueName: "list"
        )
    )
    var permissions: [String] = []

    @Option(
        name: .customLong("demo-checks"),
        help: ArgumentHelp(
            "At the embedded server's first start, seed this many more checks (1 to \(DemoApp.generatedChecksLimit)) of a larger operation over ten stations.",
            discussion:
                "Each check then has a station, and each user receives their own station's checks only: alice CDG (with the demo's five checks), bob ORY. A server seeded before keeps what it has.",
            valueName: "count"
        )
    )
    var demoChecks: Int?

    /// The permissions `--permissions` names, in order, each once.
    static func permissions(_ values: [String]) throws -> [Permission] {
        var chosen: [Permission] = []
        for name in values.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let permission = Permission(rawValue: trimmed) else {
                throw ValidationError(
                    "--permissions '\(name)' is not a permission: say camera, location or notifications, separated by commas."
                )
            }
            if !chosen.contains(permission) { chosen.append(permission) }
        }
        return chosen
    }

    static var defaultDataDirectory: String {
        GangwayDirectory.path()
    }

    func validate() throws {
        try DirectoryOption.validate(dataDirectory, option: "--data-dir")
        try BcryptCostOption.validate(bcryptCost)
        for text in terms where DeviceAppOptions.termsLink(text) == nil {
            throw ValidationError(
                "--terms '\(TextRules.shown(text, limit: 200))' is not TITLE@VERSION=URL (for example 'Terms of Use@2026.11=https://airline.example/terms')."
            )
        }
        if let serverURL {
            _ = try URLOption.parse(serverURL, option: "--server")
        }
        _ = try Self.permissions(permissions)
        try Self.validate(demoChecks: demoChecks)
    }

    /// Refuses a `--demo-checks` out of its range.
    static func validate(demoChecks: Int?) throws {
        if let demoChecks, !(1...DemoApp.generatedChecksLimit).contains(demoChecks) {
            throw ValidationError("--demo-checks must be between 1 and \(DemoApp.generatedChecksLimit).")
        }
    }

    func run() async throws {
        let rounds = TestHooks.current?.passcodeRounds ?? PasscodeKeyDerivation.defaultRounds
        let options = DeviceAppOptions(
            dataDirectory: URL(fileURLWithPath: dataDirectory),
            serverURL: try serverURL.map { try URLOption.parse($0, option: "--server") },
            bcryptCost: bcryptCost,
            biometrics: biometrics,
            passcodeRounds: rounds,
            isSharedDevice: !personalDevice,
            uploadBatchSize: TestHooks.current?.uploadBatchSize,
            termsLinks: terms.compactMap(DeviceAppOptions.termsLink),
            agreementsAfterPasscode: agreementsAfterPasscode,
            permissions: try Self.permissions(permissions)
        )
        // Not a server's own directory: the app would put its device and its server
        // beside that server's files, and admin could no longer tell which is meant.
        if LocalServer.isServeDirectory(options.dataDirectory) {
            Console.standardError(
                "gangway: \(dataDirectory) is a 'gangway serve' data directory; give the app a directory of its own "
                    + "(and --server URL to use that server). Nothing was changed."
            )
            throw ExitCode(StoreExitCode.failure)
        }
        do {
            try await CommandReport.run("gangway") {
                try await DeviceApp(
                    options: options,
                    console: Console(mode: plain ? .plain : nil),
                    embeddedServer: { [demoChecks] in
                        try await DemoServer(
                            directory: $0,
                            bcryptCost: $1,
                            logger: $2,
                            holder: $3,
                            generatedChecks: demoChecks ?? 0
                        )
                    }
                ).run()
            }
        } catch is DeviceApp.InputEndedEarly, is DeviceApp.LaunchFailed {
            // The app said so on its screen.
            throw ExitCode(StoreExitCode.failure)
        }
    }
}

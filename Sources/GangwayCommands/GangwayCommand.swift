import ArgumentParser
import Foundation
import GangwayProtocol
import GangwayTerminal

/// The `gangway` command: the root of every subcommand.
public struct GangwayCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "gangway",
        abstract: "Onboard users into an enterprise app and keep their data locked to them.",
        discussion: """
            Gangway is a toolkit for the first-run flow, the secure per-user store and shared \
            devices. With no subcommand it runs the device app against a server in this \
            process; the subcommands work its parts directly.
            """,
        version: DeviceApp.version,
        subcommands: [AppCommand.self, AdminCommand.self, StoreCommand.self, ServeCommand.self],
        defaultSubcommand: AppCommand.self
    )

    public init() {}
}

extension GangwayCommand {
    /// Parses the process's arguments and runs the chosen command; the executable's entry.
    public static func start() async {
        refuseArgumentsThatAreNotText()
        refuseUnknownCommand()
        let (arguments, origins) = argumentsWithSettings()
        await ServeSettings.$origins.withValue(origins) { await main(arguments) }
    }

    /// The same, with the hooks of Gangway's test host.
    @_spi(Testing) public static func start(hooks: TestHooks) async {
        refuseArgumentsThatAreNotText()
        refuseUnknownCommand()
        let (arguments, origins) = argumentsWithSettings()
        await TestHooks.$current.withValue(hooks) {
            await ServeSettings.$origins.withValue(origins) { await main(arguments) }
        }
    }

    /// The process's arguments; for `serve`, with the settings of its configuration file
    /// and of the environment before them (``ServeSettings``). Ends the process (64) with
    /// one sentence when they cannot be read.
    private static func argumentsWithSettings() -> ([String], [String: ServeSettings.Origin]) {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.first == "serve" else { return (arguments, [:]) }
        do {
            let environment = ProcessInfo.processInfo.environment
            let (expanded, origins) = try ServeSettings.arguments(
                Array(arguments.dropFirst()),
                environment: environment
            )
            for variable in ServeSettings.ignoredVariables(in: environment) {
                Console.standardError(
                    "Warning: \(variable) is not read: that setting would weaken the server if an "
                        + "environment could set it; give it on the command line or in --config."
                )
            }
            for sentence in ServeSettings.unreadVariables(in: environment) {
                Console.standardError("Warning: " + sentence)
            }
            return (["serve"] + expanded, origins)
        } catch {
            // As the parser says what it refuses: these are the command line's, from elsewhere.
            let ended = error.description.hasSuffix(".") || error.description.hasSuffix("?")
            let sentence = ended ? error.description : error.description + "."
            Console.standardError(
                "Error: \(sentence)\nUsage: \(usageString(for: ServeCommand.self))\n"
                    + "  See 'gangway serve --help' for more information."
            )
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
    }

    /// The words `gangway` takes first: its commands, and `help`.
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// What is wrong with a first argument that is neither an option nor a command (the
    /// device app, the command taken without one, takes no argument but options): a
    /// sentence that names it and the command it most likely meant; `nil` when it is fine.
    static func unknownCommandProblem(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !commandNames.contains(first) else { return nil }
        let shown = TextRules.shown(first, limit: 40)
        if let meant = ClosestWord.to(first, among: commandNames) {
            return "no command '\(shown)'; did you mean '\(meant)'?"
        }
        return "no command '\(shown)'; the commands are \(commandNames.dropLast().joined(separator: ", ")) (see "
            + "'gangway --help')."
    }

    /// Ends the process (64) when the first argument is a command `gangway` does not have,
    /// instead of reading it as the device app's and answering about its options.
    private static func refuseUnknownCommand() {
        guard let problem = unknownCommandProblem(Array(CommandLine.arguments.dropFirst())) else { return }
        Console.standardError("gangway: error: " + problem)
        Foundation.exit(ExitCode.validationFailure.rawValue)
    }

    /// Ends the process (64, a bad command line) when an argument is not UTF-8: Swift
    /// would read its bytes as replacement characters, so two different keys or paths
    /// would become one.
    private static func refuseArgumentsThatAreNotText() {
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else {
                continue
            }
            Console.standardError("gangway: error: argument \(index) is not UTF-8 text; nothing was done.")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
    }
}

import ArgumentParser
import Foundation
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
        await main()
    }

    /// The same, with the hooks of Gangway's test host.
    @_spi(Testing) public static func start(hooks: TestHooks) async {
        refuseArgumentsThatAreNotText()
        await TestHooks.$current.withValue(hooks) { await main() }
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

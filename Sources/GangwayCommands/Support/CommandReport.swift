import ArgumentParser
import GangwayAdmin
import GangwayServer
import GangwayServerStorage
import GangwaySystem
import GangwayTerminal

/// How a command says a failure it expects: one sentence on standard error, prefixed by
/// the command's name, and an exit code (a ``CommandFailure``'s own, 1 otherwise). Any
/// other error goes on to ArgumentParser.
enum CommandReport {
    /// Runs `body`; a failure `describe` or ``sentence(for:)`` knows becomes one line.
    static func run<Result>(
        _ command: String,
        describing describe: (any Error) -> String? = { _ in nil },
        _ body: () async throws -> Result
    ) async throws -> Result {
        do {
            return try await body()
        } catch let failure as CommandFailure {
            Console.standardError("\(command): \(failure.message)")
            throw ExitCode(failure.code)
        } catch {
            guard let text = describe(error) ?? sentence(for: error) else { throw error }
            Console.standardError("\(command): \(text)")
            throw ExitCode(StoreExitCode.failure)
        }
    }

    /// The sentence for a failure every command may meet: an unsafe or busy data
    /// directory, storage that cannot be used, no server where one was expected.
    static func sentence(for error: any Error) -> String? {
        switch error {
        case let error as PrivateFileError: "\(error)."
        case let error as StorageError: "\(error.message)."
        case let error as ServerBackupError: "\(error)."
        case let error as LocalServer.Missing: "\(error)"
        case let error as LocalServer.Ambiguous: "\(error)"
        case let error as LocalServer.TokenNotHeld: "\(error)"
        case let error as DeviceApp.OtherServer: "\(error)"
        case let error as DeviceApp.NotAServer: "\(error)"
        default: nil
        }
    }
}

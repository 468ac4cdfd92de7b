import ArgumentParser
import GangwayPolicy
import GangwayStore
import GangwayTerminal

/// The exit codes of `gangway store`, as documented in its help.
enum StoreExitCode {
    static let failure: Int32 = 1
    static let wrongPasscode: Int32 = 3
    static let erased: Int32 = 4
    static let integrity: Int32 = 5
    static let passcodeRejected: Int32 = 6
    static let keyNotFound: Int32 = 7

    static func code(for error: SecureStoreError) -> Int32 {
        if error == .wrongPasscode { return wrongPasscode }
        if error == .erased { return erased }
        if error.isIntegrityProblem { return integrity }
        if error == .passcodeRejected { return passcodeRejected }
        return failure
    }
}

/// A failure already reported on standard error, ending the command with `code`.
struct CommandFailure: Error {
    let message: String
    let code: Int32

    init(_ message: String, code: Int32 = StoreExitCode.failure) {
        self.message = message
        self.code = code
    }

    init(_ error: SecureStoreError) {
        self.init(error.description, code: StoreExitCode.code(for: error))
    }
}

/// A `gangway store` subcommand: its work is ``perform()``, and every failure becomes one
/// line on standard error and the exit code the README lists.
protocol StoreSubcommand: AsyncParsableCommand {
    /// The command's work.
    func perform() async throws
}

extension StoreSubcommand {
    func run() async throws {
        do {
            try await perform()
        } catch let failure as CommandFailure {
            Console.standardError("gangway: error: \(failure.message)")
            throw ExitCode(failure.code)
        } catch let error as SecureStoreError {
            Console.standardError("gangway: error: \(error)")
            throw ExitCode(StoreExitCode.code(for: error))
        } catch let error as PasscodePolicyError {
            Console.standardError("gangway: error: \(error)")
            throw ExitCode(StoreExitCode.failure)
        }
    }
}

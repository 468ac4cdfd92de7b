import ArgumentParser
import Foundation

/// A directory named on the command line (`--data-dir`, `--path`, `--device-keys`): an
/// empty one is refused, never taken as the current directory.
enum DirectoryOption {
    static func validate(_ path: String, option: String) throws {
        guard !path.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("\(option) needs a directory.")
        }
    }
}

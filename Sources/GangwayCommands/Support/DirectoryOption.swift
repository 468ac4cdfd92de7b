import ArgumentParser
import Foundation

/// A directory named on the command line (`--data-dir`, `--path`, `--device-keys`): an
/// empty one is refused, never taken as the current directory, and so is the file
/// system's root, where Gangway's files would mix with the system's.
enum DirectoryOption {
    static func validate(_ path: String, option: String) throws {
        guard !path.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("\(option) needs a directory.")
        }
        guard URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path != "/" else {
            throw ValidationError("\(option) must not be the file system's root: name a directory of Gangway's own.")
        }
    }
}

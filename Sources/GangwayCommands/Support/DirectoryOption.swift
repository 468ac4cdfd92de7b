import ArgumentParser
import Foundation

/// A directory named on the command line (`--data-dir`, `--path`, `--device-keys`): an
/// empty one is refused, never taken as the current directory, and so is the file
/// system's root, where Gangway's files would mix with the system's, and a path with a
/// control character in it.
enum DirectoryOption {
    static func validate(_ path: String, option: String) throws {
        guard !path.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("\(option) needs a directory.")
        }
        // A path with a control character in it (a NUL, a line break) is a slip, and would
        // make a directory no one can type or read back.
        guard !path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ValidationError("\(option) holds a control character (such as a line break); name a plain path.")
        }
        guard URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path != "/" else {
            throw ValidationError("\(option) must not be the file system's root: name a directory of Gangway's own.")
        }
    }
}

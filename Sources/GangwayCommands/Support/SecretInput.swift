import Foundation
import GangwaySystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A secret a command is given (an admin token, a client secret, a destination's
/// credential): from a file or from standard input, never from its command line, where
/// `ps` and the shell's history would keep it.
///
/// A regular file must be the running user's own and writable by no one else, as every
/// file Gangway trusts (``PrivateFiles/read(_:secret:)``); a pipe, as `<(pass show …)`
/// gives, is read as it comes. Surrounding spaces and line ends are not part of the
/// secret, and an empty one is refused.
enum SecretInput {
    /// The secret in the file at `path`; `what` names it in a refusal ("the token file").
    static func read(file path: String, what: String) throws -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { throw CommandFailure("cannot read \(what) \(path).") }
        let data: Data
        if status.st_mode & S_IFMT == S_IFREG {
            do {
                guard let contents = try PrivateFiles.read(URL(fileURLWithPath: path)) else {
                    throw CommandFailure("cannot read \(what) \(path).")
                }
                data = contents
            } catch let error as PrivateFileError {
                throw CommandFailure("\(what) \(error).")
            }
        } else {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CommandFailure("cannot read \(what) \(path).")
            }
            defer { try? handle.close() }
            data = handle.readDataToEndOfFile()
        }
        return try secret(in: data, what: what)
    }

    /// The secret on standard input, to its end.
    static func readStandardInput(what: String) throws -> String {
        try secret(in: FileHandle.standardInput.readDataToEndOfFile(), what: what)
    }

    private static func secret(in data: Data, what: String) throws -> String {
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CommandFailure("\(what) is empty.") }
        return text
    }
}

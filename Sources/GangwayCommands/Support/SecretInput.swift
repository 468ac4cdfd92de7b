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
/// A regular file must be the running user's own and readable and writable by no one
/// else, as every secret file Gangway trusts (``PrivateFiles/read(_:secret:)``), and as
/// `ssh` asks of a private key; a pipe, as `<(pass show …)`
/// gives, is read as it comes. A secret is at most ``maximumSize`` bytes: a file or pipe
/// with more (`/dev/zero`) is refused once that much was read. Surrounding spaces and
/// line ends are not part of the secret, and an empty one is refused.
enum SecretInput {
    /// The most bytes a secret takes: the server's longest (a client secret, a
    /// credential) is 4,096 characters.
    static let maximumSize = 64 * 1024

    /// The secret in the file at `path`; `what` names it in a refusal ("the token file").
    static func read(file path: String, what: String) throws -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { throw CommandFailure("cannot read \(what) \(path).") }
        let data: Data
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw CommandFailure("\(what) \(path) is a directory.")
        case S_IFREG:
            guard status.st_size <= maximumSize else { throw tooLarge(what, path) }
            do {
                guard let contents = try PrivateFiles.read(URL(fileURLWithPath: path), secret: true) else {
                    throw CommandFailure("cannot read \(what) \(path).")
                }
                data = contents
            } catch let error as PrivateFileError {
                throw CommandFailure("\(what) \(error).")
            }
        default:
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CommandFailure("cannot read \(what) \(path).")
            }
            defer { try? handle.close() }
            data = try bounded(handle, what: "\(what) \(path)")
        }
        return try secret(in: data, what: "\(what) \(path)")
    }

    /// The secret on standard input, to its end.
    static func readStandardInput(what: String) throws -> String {
        try secret(in: try bounded(FileHandle.standardInput, what: what), what: what)
    }

    /// What `handle` holds to its end, refused past ``maximumSize``.
    private static func bounded(_ handle: FileHandle, what: String) throws -> Data {
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: maximumSize + 1 - data.count), !chunk.isEmpty {
                data += chunk
                guard data.count <= maximumSize else { throw tooLarge(what, nil) }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("cannot read \(what).")
        }
        return data
    }

    private static func tooLarge(_ what: String, _ path: String?) -> CommandFailure {
        CommandFailure(
            "\(what)\(path.map { " \($0)" } ?? "") holds more than \(maximumSize / 1024) KiB; no secret is that long."
        )
    }

    private static func secret(in data: Data, what: String) throws -> String {
        // A byte replaced would make different secrets one.
        guard let decoded = String(validating: data, as: UTF8.self) else {
            throw CommandFailure("\(what) is not UTF-8 text.")
        }
        let text = decoded.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw CommandFailure("\(what) is empty.") }
        return text
    }
}

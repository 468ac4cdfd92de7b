import Foundation
import GangwayAdmin
import GangwayClient
import GangwayDemo
import GangwayProtocol
import GangwayServer
import GangwaySystem
import GangwayTerminal

/// The server on this machine that `gangway admin` manages when no `--server` is given:
/// the one whose data lives in `DIR/server` (the device app's embedded server, or a
/// `gangway serve` started with that data directory), or in `DIR` itself when `DIR` is a
/// `gangway serve --data-dir`.
///
/// When it is serving (its URL, in `DIR/server/url`, answers), the admin calls go there,
/// so a running device app sees each change at its next server contact. When nothing
/// answers, the embedded server starts in this process for the time of the calls, on the
/// same SQLite database: the device app's embedded server (GangwayDemo's `DemoServer`). It never creates one: a mistyped `--data-dir` is an error
/// (``Missing``), not a new server with the demo's published passwords.
public struct LocalServer: Sendable {
    /// No server to manage: nothing answers at a saved URL and there is no SQLite
    /// database, in `DIR/server` or in `DIR`.
    public struct Missing: Error, Hashable, Sendable, CustomStringConvertible {
        /// The data directory given.
        public let dataDirectory: URL
        /// Whether it holds a server's own files but no SQLite database: the directory of
        /// a server on PostgreSQL, which is not running.
        public var keepsServerFiles = false

        public init(dataDirectory: URL, keepsServerFiles: Bool = false) {
            self.dataDirectory = dataDirectory
            self.keepsServerFiles = keepsServerFiles
        }

        public var description: String {
            let path = dataDirectory.path
            guard !keepsServerFiles else {
                return "the server of \(path) is not running, and keeps its data elsewhere (PostgreSQL): start it "
                    + "as before ('gangway serve --data-dir \(path)' with its --postgres-file or --config), or name a "
                    + "running one with --server URL."
            }
            return "no Gangway server in \(path) (nothing answers at a URL saved there, and there is no database "
                + "in \(path)/server or \(path)); start one with 'gangway --data-dir \(path)' or "
                + "'gangway serve --data-dir \(path)', or name a running one with --server URL."
        }
    }

    /// Where the server keeps its data (`DIR/server`).
    public let directory: URL
    /// The data directory given, for what an error says.
    let dataDirectory: URL
    /// The cost of the password hashes of the server started here when nothing answers.
    let bcryptCost: UInt8
    /// How long a new signing key of the server started here is published before it signs.
    let keyPublicationLead: Duration
    /// The server key of the server started here, when not `DIR/server-key`.
    let keyFile: URL?

    public init(
        dataDirectory: URL,
        bcryptCost: UInt8,
        keyPublicationLead: Duration = ServerConfiguration.defaultKeyPublicationLead,
        keyFile: URL? = nil
    ) {
        self.keyPublicationLead = keyPublicationLead
        self.keyFile = keyFile
        self.dataDirectory = dataDirectory
        // The server's own directory: `DIR/server` for the device app's data directory,
        // or `DIR` itself when it is a `gangway serve --data-dir` (it holds the server's
        // admin token or database, and no `server` directory), so an operator pointing
        // `gangway admin --data-dir` at their server's directory reaches that server.
        let nested = dataDirectory.appendingPathComponent(DeviceAppOptions.serverDirectoryName)
        directory =
            Self.isServeDirectory(dataDirectory) && !FileManager.default.fileExists(atPath: nested.path)
            ? dataDirectory : nested
        self.bcryptCost = bcryptCost
    }

    /// Whether `directory` is a `gangway serve --data-dir`: it holds a server's own
    /// files (its admin token, key or database) itself.
    public static func isServeDirectory(_ directory: URL) -> Bool {
        [
            ServerConfiguration.adminTokenFileName, ServerConfiguration.serverKeyFileName,
            ServerConfiguration.sqliteFileName,
        ].contains {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
    }

    /// A data directory that holds a server's own files and the device app's `server`
    /// directory: which server is meant is not guessed.
    public struct Ambiguous: Error, Hashable, Sendable, CustomStringConvertible {
        /// The data directory given.
        public let dataDirectory: URL

        public var description: String {
            let path = dataDirectory.path
            return "\(path) holds a 'gangway serve' server's files and the device app's server in \(path)/server; "
                + "name the one you mean with --server URL (or --data-dir \(path)/server for the app's)."
        }
    }

    /// A server runs on the directory, but the admin token file there is missing or not
    /// its token: the calls cannot reach it, nor another server open its database.
    public struct TokenNotHeld: Error, Hashable, Sendable, CustomStringConvertible {
        /// The server's directory.
        public let directory: URL

        public var description: String {
            let file = directory.appendingPathComponent(ServerConfiguration.adminTokenFileName).path
            return "the server running on \(directory.path) did not take the admin token in \(file) (there is none, "
                + "or it is another server's): copy that server's admin-token file there, or restart it once with "
                + "'gangway serve --new-admin-token'; or reach it with --server URL --token-file FILE."
        }
    }

    /// How the calls reached the server.
    public enum Reach: Sendable, Hashable {
        /// The server was serving at this URL.
        case running(URL)
        /// Nothing answered; the embedded server ran in this process for the calls.
        case startedHere
    }

    /// Runs `body` with an admin client of the local server.
    public func withAdmin<Result: Sendable>(
        _ body: @Sendable (AdminClient, Reach) async throws -> Result
    ) async throws -> Result {
        // What another account could have planted (a URL of its listener, a token) is
        // never believed: the directory and its files must be the user's own.
        if directory != dataDirectory, FileManager.default.fileExists(atPath: dataDirectory.path) {
            // A file named as the data directory is said as such, not by a path inside it.
            try PrivateFiles.checkDirectory(dataDirectory)
        }
        if FileManager.default.fileExists(atPath: directory.path) {
            try PrivateFiles.checkDirectory(directory)
        }
        if directory != dataDirectory, Self.isServeDirectory(dataDirectory) {
            throw Ambiguous(dataDirectory: dataDirectory)
        }
        // Whether a server may be running here that this directory's token does not reach.
        var tokenNotTaken = false
        if let url = try savedURL() {
            if let token = try adminToken() {
                let admin = AdminClient(serverURL: url, adminToken: token)
                let answers: Bool
                do throws(ServiceError) {
                    _ = try await admin.apps()
                    answers = true
                } catch {
                    // Nothing there, or something that is not this directory's server (which
                    // got no token): the server is not running, or holds another token.
                    guard error == .unreachable || error == .serverNotProven else { throw error }
                    answers = false
                    tokenNotTaken = error == .serverNotProven
                }
                if answers { return try await body(admin, .running(url)) }
            } else {
                tokenNotTaken = true
            }
        }
        // A server holds the directory: said as its token, not as a directory in use.
        if tokenNotTaken, DirectoryLock.holder(of: directory) != nil { throw TokenNotHeld(directory: directory) }
        let database = directory.appendingPathComponent(ServerConfiguration.sqliteFileName)
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw Missing(dataDirectory: dataDirectory, keepsServerFiles: Self.isServeDirectory(directory))
        }
        // The server removes the URL it wrote when it stops.
        return try await DemoServer.serving(
            directory: directory,
            bcryptCost: bcryptCost,
            holder: "gangway admin",
            keyPublicationLead: keyPublicationLead,
            keyFile: keyFile
        ) { url in
            // The server that just started here wrote its token.
            try await body(AdminClient(serverURL: url, adminToken: try adminToken() ?? ""), .startedHere)
        }
    }

    var urlFile: URL { directory.appendingPathComponent(ServerURLFile.fileName) }

    /// The URL the last server to serve this directory wrote; refused when the file is
    /// not the user's own.
    func savedURL() throws -> URL? {
        try PrivateFiles.read(urlFile).flatMap {
            try? WebURL.parse(String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// The admin token the server wrote; `nil` when there is no file, refused when the
    /// file is not the user's own, or others can read it (as `--token-file` is).
    func adminToken() throws -> String? {
        try PrivateFiles.read(directory.appendingPathComponent(ServerConfiguration.adminTokenFileName), secret: true)
            .map {
                String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
    }
}

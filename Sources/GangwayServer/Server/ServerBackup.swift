import Foundation
import GangwayServerStorage
import GangwaySystem

#if canImport(Glibc)
    import Glibc
#endif

/// Backs up a SQLite server's database while it serves (`gangway admin backup`), and
/// restores a backup into a new data directory (`gangway serve --restore`).
///
/// A backup is one consistent snapshot of the database (SQLite's backup API, each step
/// inside one read transaction, at a pace that takes at most about half the time of one
/// core): every write acknowledged before it began is in it, and none is half in it. It holds the
/// signing keys and recovery secrets sealed with the server key, which is not in it: a
/// backup without its key file cannot be read, by design, so keep the key, apart from
/// the backups. A restore checks the backup and the key before it writes anything, and
/// never replaces a database. PostgreSQL is backed up with `pg_dump` (see the README).
public enum ServerBackup {
    /// A backup written.
    public struct Made: Sendable, Hashable {
        /// The backup's size, in bytes.
        public var bytes: Int64
        /// The migrations the database had run.
        public var migrations: Int
    }

    /// Writes a backup of the SQLite database in `dataDirectory` to `file`, a new file of
    /// mode 0600 in a directory that is the user's own. Its server may be serving.
    ///
    /// - Throws: ``ServerBackupError`` when there is no database, or `file` exists;
    ///   `PrivateFileError` for an unsafe directory; `StorageError` when the copy fails.
    ///   Nothing is left at `file` then.
    public static func backUp(dataDirectory: URL, to file: URL) async throws -> Made {
        let database = dataDirectory.appendingPathComponent(ServerConfiguration.sqliteFileName)
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw ServerBackupError.noDatabase(dataDirectory.path)
        }
        guard !isDirectory(file) else { throw ServerBackupError.directory(file.path) }
        guard !exists(file) else { throw ServerBackupError.exists(file.path) }
        // A typo in the directory is not a new directory: the backup would be where no one
        // looks for it.
        guard isDirectory(file.deletingLastPathComponent()) else {
            throw ServerBackupError.noDirectory(file.deletingLastPathComponent().path)
        }
        let partial = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).partial")
        do {
            try PrivateFiles.createEmpty(partial)
            try await copy(database, into: partial, readOnly: false, pace: .sharing)
            // The copy is read back as a restore would read it, before it takes the name.
            let contents = try await SQLiteDriver.inspect(partial, secret: ServerKey.checkName)
            try PrivateFiles.moveWithoutReplacing(partial, to: file)
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int64
            return Made(bytes: size ?? 0, migrations: contents.migrations.count)
        } catch {
            unlink(partial.path)
            throw error
        }
    }

    /// Restores `backup` as the SQLite database of `configuration`'s data directory,
    /// which must hold none, once it has checked that the backup is a whole Gangway
    /// database of a version this server knows, and that the server key
    /// (``ServerConfiguration/serverKeyPath``) is the one its secrets were sealed with.
    ///
    /// - Throws: ``ServerBackupError``, `ServerKeyError` or `PrivateFileError`, having
    ///   written nothing.
    public static func restore(_ backup: URL, configuration: ServerConfiguration) async throws {
        guard configuration.postgresURL == nil else { throw ServerBackupError.postgres }
        let kind = (try? FileManager.default.attributesOfItem(atPath: backup.resolvingSymlinksInPath().path))?[.type]
        guard kind as? FileAttributeType == .typeRegular else {
            throw isDirectory(backup) ? ServerBackupError.directory(backup.path) : .noBackup(backup.path)
        }
        let target = configuration.sqlitePath
        guard !exists(target) else { throw ServerBackupError.holdsDatabase(configuration.dataDirectory.path) }
        let contents: SQLiteDriver.BackupContents
        do {
            contents = try await SQLiteDriver.inspect(backup, secret: ServerKey.checkName)
        } catch {
            throw ServerBackupError.notABackup(backup.path, reason: error.message)
        }
        let known = Set(ServerStorage.migrationNames(.sqlite))
        guard Set(contents.migrations).isSubset(of: known) else { throw ServerBackupError.newer(backup.path) }
        do {
            try ServerKey.verify(file: configuration.serverKeyPath, recorded: contents.secret)
        } catch let error as ServerKeyError {
            throw ServerBackupError.key(error, backup: backup.path)
        }
        try PrivateFiles.makeDirectory(configuration.dataDirectory)
        let partial = configuration.dataDirectory
            .appendingPathComponent(".\(ServerConfiguration.sqliteFileName).\(UUID().uuidString).restoring")
        do {
            try PrivateFiles.createEmpty(partial)
            try await copy(backup, into: partial, readOnly: true, pace: .fullSpeed)
            try PrivateFiles.moveWithoutReplacing(partial, to: target)
        } catch {
            unlink(partial.path)
            throw error
        }
    }

    /// ``SQLiteDriver/copy(_:into:readOnly:pace:)`` on a thread of its own at a lower
    /// priority: the server's requests go first.
    private static func copy(
        _ database: URL,
        into file: URL,
        readOnly: Bool,
        pace: SQLiteDriver.CopyPace
    ) async throws {
        try await BackgroundWork.run { () -> Result<Void, StorageError> in
            Result { () throws(StorageError) in
                try SQLiteDriver.copy(database, into: file, readOnly: readOnly, pace: pace)
            }
        }.get()
    }

    /// Whether `path` is a directory, or a link to one.
    private static func isDirectory(_ path: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Whether anything is at `file`, a dangling link included.
    private static func exists(_ file: URL) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: file.path)) != nil
    }
}

/// Why a backup or a restore was refused, in one sentence for the operator.
public struct ServerBackupError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    static func noDatabase(_ directory: String) -> Self {
        Self(
            description: "there is no SQLite database in \(directory) to back up; a server on PostgreSQL is "
                + "backed up with pg_dump, as the README says"
        )
    }

    static func exists(_ file: String) -> Self {
        Self(description: "\(file) exists; a backup never replaces a file, so name a new one")
    }

    static let postgres = Self(
        description: "--restore restores a SQLite backup and cannot be used with --postgres; a PostgreSQL "
            + "database is restored with pg_restore, as the README says"
    )

    static func directory(_ path: String) -> Self {
        Self(description: "\(path) is a directory; name a backup file")
    }

    static func noDirectory(_ directory: String) -> Self {
        Self(description: "there is no directory \(directory) to write the backup in; make it first, or name another")
    }

    static func noBackup(_ file: String) -> Self {
        Self(description: "there is no backup file at \(file)")
    }

    static func holdsDatabase(_ directory: String) -> Self {
        Self(
            description: "\(directory) holds a database already, which a restore never replaces; restore into a "
                + "new data directory"
        )
    }

    static func notABackup(_ file: String, reason: String) -> Self {
        Self(description: "\(file) is not a Gangway backup: \(reason)")
    }

    static func key(_ error: ServerKeyError, backup: String) -> Self {
        let key = error.path
        return switch error {
        case .missing(path: key):
            Self(
                description: "\(backup)'s secrets are sealed with the server key of the server it came from, and "
                    + "\(key) is missing: copy that server's key file there, or name it with --key-file"
            )
        case .mismatch(path: key):
            Self(
                description: "\(key) is not the server key \(backup)'s secrets are sealed with: use the key file "
                    + "of the server it came from, or name it with --key-file"
            )
        default: Self(description: "the server key \(key) cannot be read: it must be the 32 bytes the server wrote")
        }
    }

    static func newer(_ file: String) -> Self {
        Self(description: "\(file) was made by a newer Gangway than this one; restore it with that version or later")
    }
}

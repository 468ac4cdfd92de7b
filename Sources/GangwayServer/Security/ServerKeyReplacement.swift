import Crypto
import Foundation
import GangwayServerStorage
import GangwaySystem
import Logging

/// Replaces the server key (``ServerKey``, the file that seals every secret the server
/// keeps) with a new one, sealing every sealed value (``SealedValues``) anew, while no
/// server uses the database (`gangway admin keys replace-server-key`).
///
/// The new key is written first, 0600, beside the key file (`server-key.next`), and the
/// database notes it (a check value, which says nothing of the key): from then on no
/// server starts on the database until the replacement has ended. Each value is then
/// sealed anew in a write of its own, and the database's check value changes to the new
/// key's. Last, the old key file is kept as `server-key.replaced-TIME` (backups taken
/// before need it) and the new key takes its name.
///
/// Interrupted anywhere, it is run again and goes on: a value that opens with the new
/// key is sealed already; a database that knows the new key has only the files left.
public enum ServerKeyReplacement {
    /// What a replacement did.
    public struct Outcome: Sendable, Hashable {
        /// The values this run sealed anew.
        public var resealed = 0
        /// The values an earlier, interrupted run had sealed anew.
        public var alreadyNew = 0
        /// The values that open with neither key (none the server could use either),
        /// left as they were.
        public var unreadable = 0
        /// Where the key it replaced is kept.
        public var replacedKey: URL?
    }

    /// Why a replacement did not start. New cases may be added.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// Where the new key waits until every value is sealed with it.
    public static func nextKeyFile(of keyFile: URL) -> URL {
        keyFile.deletingLastPathComponent().appendingPathComponent(keyFile.lastPathComponent + ".next")
    }

    /// The name the replaced key is kept under: `server-key.replaced-TIME`, with `-2`,
    /// `-3`… after it when a key replaced in the same second has it.
    static func replacedKeyFile(of keyFile: URL, at now: Date) -> URL {
        let stamp = now.formatted(.iso8601).replacingOccurrences(of: "-", with: "")
            .replacingOccurrences(of: ":", with: "")
        let base = keyFile.deletingLastPathComponent().appendingPathComponent(
            keyFile.lastPathComponent + ".replaced-" + stamp
        )
        var candidate = base
        var number = 2
        while FileManager.default.fileExists(atPath: candidate.path) || PrivateFiles.mode(of: candidate.path) != nil {
            candidate = URL(fileURLWithPath: base.path + "-\(number)")
            number += 1
        }
        return candidate
    }

    /// Replaces the key of the server `configuration` names.
    ///
    /// - Throws: ``Refusal`` when a server uses the database or there is nothing to
    ///   replace; ``ServerKeyError`` when the key file is missing or another key;
    ///   ``GangwaySystem/PrivateFileError`` or ``GangwayServerStorage/StorageError``.
    public static func replace(
        configuration: ServerConfiguration,
        logger: Logger,
        now: Date = WallClock.now()
    ) async throws -> Outcome {
        let keyFile = configuration.serverKeyPath
        let nextFile = nextKeyFile(of: keyFile)
        let current = try keyBytes(keyFile)
        let next = try keyBytes(nextFile)
        guard current != nil || next != nil else {
            throw Refusal(description: "there is no server key at \(keyFile.path): nothing is sealed with one there")
        }
        if configuration.postgresURL == nil,
            !FileManager.default.fileExists(atPath: configuration.sqlitePath.path)
        {
            throw Refusal(description: "\(configuration.dataDirectory.path) holds no database: nothing is sealed there")
        }
        // No server of this directory while it runs; one elsewhere is seen by its listener.
        let hold = try DirectoryLock(configuration.dataDirectory, holder: "gangway admin keys replace-server-key")
        defer { hold.release() }
        let driver = try MobileServicesServer.openDriver(configuration, logger: logger)
        let storage = ServerStorage(driver)
        return try await storage.withConnections {
            try await storage.migrate()
            if let postgres = driver as? PostgresDriver {
                let serving = try await postgres.serversListening()
                guard serving == 0 else {
                    throw Refusal(
                        description: "\(serving) server process\(serving == 1 ? " uses" : "es use") this database: "
                            + "stop every one first"
                    )
                }
            }
            guard let recorded = try await storage.secret(named: ServerKey.checkName) else {
                throw Refusal(description: "the database has no values sealed with a server key: nothing to replace")
            }
            var outcome = Outcome()
            if let next, ServerKey(next).checkValue == recorded {
                // Every value was sealed anew and the database knows the new key: only
                // the files are left.
                logger.debug("server key replacement: the values were sealed anew before; the files are left")
            } else if let current, ServerKey(current).checkValue == recorded {
                let nextKey: ServerKey
                if let next {
                    nextKey = ServerKey(next)
                } else {
                    let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
                    try PrivateFiles.write(bytes, to: nextFile)
                    nextKey = ServerKey(SymmetricKey(data: bytes))
                }
                try await storage.setSecret(named: ServerKey.nextCheckName, to: nextKey.checkValue)
                outcome = try await reseal(storage, from: ServerKey(current), to: nextKey, logger: logger)
                try await storage.setSecret(named: ServerKey.checkName, to: nextKey.checkValue)
            } else {
                throw current == nil
                    ? ServerKeyError.missing(path: keyFile.path) : ServerKeyError.mismatch(path: keyFile.path)
            }
            try await storage.deleteSecret(named: ServerKey.nextCheckName)
            if current != nil {
                let replaced = replacedKeyFile(of: keyFile, at: now)
                try PrivateFiles.moveWithoutReplacing(keyFile, to: replaced)
                outcome.replacedKey = replaced
            }
            try PrivateFiles.moveWithoutReplacing(nextFile, to: keyFile)
            return outcome
        }
    }

    /// The key a file holds, if there is one: 32 bytes, the owner's alone.
    private static func keyBytes(_ file: URL) throws -> SymmetricKey? {
        guard let bytes = try PrivateFiles.read(file, secret: true) else { return nil }
        guard bytes.count == 32 else { throw ServerKeyError.unreadable(path: file.path) }
        return SymmetricKey(data: bytes)
    }

    /// What becomes of one value.
    private enum Step {
        case sealed(Data)
        case alreadyNew
        case unreadable
    }

    private static func step(
        _ value: Data,
        for purpose: String,
        plainLength: Int,
        from old: ServerKey,
        to new: ServerKey
    ) -> Step {
        if (try? new.open(value, for: purpose, plainLength: -1)) != nil { return .alreadyNew }
        guard let plain = try? old.open(value, for: purpose, plainLength: plainLength),
            let sealed = try? new.seal(plain, for: purpose)
        else { return .unreadable }
        return .sealed(sealed)
    }

    /// Seals every sealed value anew, each in a write of its own.
    private static func reseal(
        _ storage: ServerStorage,
        from old: ServerKey,
        to new: ServerKey,
        logger: Logger
    ) async throws -> Outcome {
        var outcome = Outcome()
        func count(_ step: Step, _ write: (Data) async throws -> Void) async throws {
            switch step {
            case .sealed(let sealed):
                try await write(sealed)
                outcome.resealed += 1
            case .alreadyNew: outcome.alreadyNew += 1
            case .unreadable: outcome.unreadable += 1
            }
        }
        for (name, plainLength) in SealedValues.secrets {
            guard let value = try await storage.secret(named: name) else { continue }
            try await count(step(value, for: name, plainLength: plainLength, from: old, to: new)) {
                try await storage.setSecret(named: name, to: $0)
            }
        }
        for column in SealedValues.columns {
            let before = outcome.resealed
            for cell in try await storage.sealedCells(column.column) {
                let purpose = try column.purpose(cell.row)
                try await count(step(cell.value, for: purpose, plainLength: column.plainLength, from: old, to: new)) {
                    _ = try await storage.replaceSealedCell(column.column, cell, with: $0)
                }
            }
            logger.debug(
                "server key replacement: sealed anew",
                metadata: ["table": "\(column.column.table)", "values": "\(outcome.resealed - before)"]
            )
        }
        for var app in try await storage.apps() {
            guard let sealed = app.authentication.provider?.sealedClientSecret else { continue }
            let purpose = IdentityProvider.sealPurpose(appID: app.id)
            try await count(step(sealed, for: purpose, plainLength: -1, from: old, to: new)) {
                app.authentication.provider?.sealedClientSecret = $0
                try await storage.updateApp(app)
            }
        }
        return outcome
    }
}

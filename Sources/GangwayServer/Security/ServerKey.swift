import Crypto
import Foundation
import GangwayServerStorage
import GangwaySystem

/// The key the server seals its own secrets with before they reach the database: the
/// activation signing key and the devices' recovery secrets. It lives in a file of its
/// own (`DIR/server-key`, or ``ServerConfiguration/keyFile``), 0600 from creation, never
/// in the database, so a copy of the database (a backup, a dump, a replica, a file read
/// by another local user) reveals neither.
///
/// The database keeps a check value made with the key; a server that starts with another
/// key, or none, over a database that has one refuses to start instead of making secrets
/// nobody can open. Every process sharing a PostgreSQL database needs the same key file.
struct ServerKey: Sendable {
    static let checkName = "server-key-check"
    /// The check value of the key a replacement is sealing the values with
    /// (``ServerKeyReplacement``), while it runs: no server starts until it has ended.
    static let nextCheckName = "server-key-next-check"
    private let key: SymmetricKey

    init(_ key: SymmetricKey) {
        self.key = key
    }

    /// Reads the key file, or makes it when neither it nor the database's check value
    /// exists yet; checks it against the database.
    static func load(file: URL, storage: ServerStorage) async throws -> ServerKey {
        guard try await storage.secret(named: nextCheckName) == nil else {
            throw ServerKeyError.replacing(path: file.path)
        }
        let stored = try await storage.secret(named: checkName)
        let bytes: Data
        // Read only when it is the user's own and no one else can read or write it.
        if let existing = try PrivateFiles.read(file, secret: true) {
            bytes = existing
        } else if stored == nil {
            bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            try PrivateFiles.write(bytes, to: file)
        } else {
            throw ServerKeyError.missing(path: file.path)
        }
        guard bytes.count == 32 else { throw ServerKeyError.unreadable(path: file.path) }
        let serverKey = ServerKey(SymmetricKey(data: bytes))
        let check = serverKey.checkValue
        let recorded = try await storage.secret(named: checkName, orInsert: check)
        guard recorded == check else { throw ServerKeyError.mismatch(path: file.path) }
        return serverKey
    }

    /// Checks, writing nothing, that `file` holds the key whose check value a database
    /// recorded (`recorded`; `nil` when it sealed nothing with a key, and any key does).
    ///
    /// - Throws: ``ServerKeyError`` when the file is missing, unreadable, or another key.
    static func verify(file: URL, recorded: Data?) throws {
        guard let bytes = try PrivateFiles.read(file, secret: true) else {
            guard recorded == nil else { throw ServerKeyError.missing(path: file.path) }
            return
        }
        guard bytes.count == 32 else { throw ServerKeyError.unreadable(path: file.path) }
        if let recorded, ServerKey(SymmetricKey(data: bytes)).checkValue != recorded {
            throw ServerKeyError.mismatch(path: file.path)
        }
    }

    /// What the database keeps to know the key by: an HMAC of a fixed text, which says
    /// nothing of the key.
    var checkValue: Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("gangway-server-key-check-v1".utf8), using: key))
    }

    /// `secret` sealed (AES-GCM) for `purpose`, which must be given again to open it: a
    /// sealed value moved to another row or kind does not open.
    func seal(_ secret: Data, for purpose: String) throws -> Data {
        guard let combined = try AES.GCM.seal(secret, using: key, authenticating: Data(purpose.utf8)).combined
        else { throw ServerKeyError.unreadable(path: "sealed value") }
        return combined
    }

    /// A private key the server keeps in its database sealed under this key: made with
    /// `make` and stored at the first start (the first process decides), read and opened
    /// after. A key stored before keys were sealed (`plainLength` bytes; `nil` for a key
    /// that never was) is sealed in place.
    func storedPrivateKey(
        named name: String,
        storage: ServerStorage,
        plainLength: Int?,
        make: () -> Data
    ) async throws -> Data {
        let fresh = try seal(make(), for: name)
        let stored = try await storage.secret(named: name, orInsert: fresh)
        let bytes = try open(stored, for: name, plainLength: plainLength ?? -1)
        if stored.count == plainLength {
            try await storage.setSecret(named: name, to: try seal(bytes, for: name))
        }
        return bytes
    }

    /// An HMAC-SHA256 of `message` under a key derived from this one for `purpose`: the
    /// same message gives another code for another purpose, and none without the key.
    func authenticationCode(for message: Data, purpose: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: message, using: authenticationKey(purpose: purpose)))
    }

    /// The key ``authenticationCode(for:purpose:)`` signs with for `purpose`, for a part
    /// of the server that signs on its own (`FormGuard`).
    func authenticationKey(purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("gangway-mac-v1:\(purpose)".utf8), outputByteCount: 32)
    }

    /// The secret `sealed` holds. A value of `plainLength` bytes is one stored before
    /// secrets were sealed, and is returned as it is (the next write seals it).
    func open(_ sealed: Data, for purpose: String, plainLength: Int) throws -> Data {
        if sealed.count == plainLength { return sealed }
        return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: Data(purpose.utf8))
    }
}

/// Why the server key could not be used. New cases may be added.
public struct ServerKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case missing
        case mismatch
        case unreadable
        case replacing
    }

    private let code: Code
    /// The key file.
    public let path: String

    /// The database has secrets sealed with a key, and the key file is missing.
    public static func missing(path: String) -> Self { Self(code: .missing, path: path) }
    /// The key file holds another key than the one the database's secrets were sealed with.
    public static func mismatch(path: String) -> Self { Self(code: .mismatch, path: path) }
    /// The key file is not 32 bytes, or a sealed value cannot be made.
    public static func unreadable(path: String) -> Self { Self(code: .unreadable, path: path) }
    /// A replacement of the key was started and has not ended: the database's values are
    /// sealed partly under the key, partly under its successor.
    public static func replacing(path: String) -> Self { Self(code: .replacing, path: path) }

    public var description: String {
        switch code {
        case .missing:
            "the server key \(path) is missing, and the database's secrets were sealed with one: "
                + "copy the key file of the first server (DIR/server-key) there, or name it with --key-file"
        case .mismatch:
            "the server key \(path) is not the one this database's secrets were sealed with: "
                + "use the first server's key file (DIR/server-key), or name it with --key-file"
        case .unreadable:
            "the server key \(path) is not a 32-byte key"
        case .replacing:
            "a replacement of the server key \(path) has not ended: run 'gangway admin keys replace-server-key' "
                + "again, with the same data directory and database, to end it before a server starts"
        }
    }
}

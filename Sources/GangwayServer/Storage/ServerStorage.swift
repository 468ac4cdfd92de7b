import Foundation
import GangwayProtocol
import ServiceLifecycle

/// Where the server keeps its state: SQLite for one process, PostgreSQL for several.
///
/// Every method is atomic on its own. The server holds no state of its own beyond short
/// caches, so any number of processes can share one PostgreSQL database.
public protocol ServerStorage: Sendable {
    /// Which kind of database this is, for `/health` and logs.
    var kind: StorageKind { get }

    /// Brings the schema up to date; safe to run from several processes at once.
    func migrate() async throws(StorageError)

    /// A new connection pool for a service group (PostgreSQL's), which the storage's
    /// calls use while its service runs; `nil` when the storage needs nothing running
    /// (SQLite). The server runs it in its service group, shut down after the HTTP
    /// server; ``withConnections(_:)`` runs one around a piece of work.
    func makeConnectionPool() -> (any Service)?

    /// The value stored under `name`, storing `value` first when there is none: the
    /// first process to start decides, the others read its choice.
    func secret(named name: String, orInsert value: Data) async throws(StorageError) -> Data
    /// The value stored under `name`, if any.
    func secret(named name: String) async throws(StorageError) -> Data?
    /// Replaces the value stored under `name`.
    func setSecret(named name: String, to value: Data) async throws(StorageError)

    func insertApp(_ app: AppRecord) async throws(StorageError)
    func app(id: String) async throws(StorageError) -> AppRecord?
    func apps() async throws(StorageError) -> [AppRecord]
    func updateApp(_ app: AppRecord) async throws(StorageError)
    func app(forEmailDomain domain: String) async throws(StorageError) -> AppRecord?

    func insertUser(_ user: UserRecord) async throws(StorageError)
    func user(named username: String) async throws(StorageError) -> UserRecord?
    func users() async throws(StorageError) -> [UserRecord]
    func updateUser(_ user: UserRecord) async throws(StorageError)

    func insertSession(_ session: SessionRecord) async throws(StorageError)
    func session(tokenHash: Data) async throws(StorageError) -> SessionRecord?
    func revokeSession(tokenHash: Data) async throws(StorageError)
    /// Revokes every session and refresh token of a user, or of a user on one app and
    /// device.
    func revokeSessions(username: String, appID: String?, deviceID: String?) async throws(StorageError)

    /// Reads the attempts counted under `keys` (a key with none is absent), lets `update`
    /// decide what changes, and stores that, in one transaction that every other call for
    /// the same `username`, in any process, waits for: two sign-ins never both take the
    /// last attempt allowed.
    func updateSignInAttempts<Result: Sendable>(
        username: String,
        keys: [String],
        _ update: @escaping @Sendable ([String: SignInAttempts]) -> (SignInAttemptsChange, Result)
    ) async throws(StorageError) -> Result

    /// Stores a new device grant; ``StorageError/Code/duplicate`` when its user code is
    /// taken (the caller draws another).
    func insertDeviceGrant(_ grant: DeviceGrantRecord) async throws(StorageError)
    func deviceGrant(deviceCodeHash: Data) async throws(StorageError) -> DeviceGrantRecord?
    func deviceGrant(userCode: String) async throws(StorageError) -> DeviceGrantRecord?
    /// Stores `grant` if the stored one still has status `expected`; `false` when another
    /// request changed it first (two polls never both redeem one approval).
    func updateDeviceGrant(
        _ grant: DeviceGrantRecord,
        expecting expected: DeviceGrantRecord.Status
    )
        async throws(StorageError) -> Bool

    func insertAuthorizationCode(_ code: AuthorizationCodeRecord) async throws(StorageError)
    func authorizationCode(codeHash: Data) async throws(StorageError) -> AuthorizationCodeRecord?
    /// Marks the code redeemed at `date`, starting refresh token family `familyID`, if no
    /// one redeemed it before: `false` when someone did (two redemptions never both win).
    func redeemAuthorizationCode(codeHash: Data, familyID: String, at date: Date) async throws(StorageError) -> Bool
    /// Adds a refresh token to its family unless the family was revoked (any of its
    /// tokens is): then nothing is added, and the answer is `false`. One step with
    /// ``revokeRefreshFamily(_:)``: a family revoked while a token joins it keeps no valid
    /// token, whichever comes first, in any number of processes.
    func insertRefreshToken(_ token: RefreshTokenRecord) async throws(StorageError) -> Bool
    func refreshToken(tokenHash: Data) async throws(StorageError) -> RefreshTokenRecord?
    /// Marks a refresh token used, if it is neither used nor revoked; `false` otherwise.
    func spendRefreshToken(tokenHash: Data, at date: Date) async throws(StorageError) -> Bool
    /// Revokes every refresh token of a family and the sessions they opened.
    func revokeRefreshFamily(_ familyID: String) async throws(StorageError)
    /// Deletes the rows ``ExpiringRows`` says are of no use at `now`; the number deleted.
    @discardableResult
    func purgeExpired(at now: Date) async throws(StorageError) -> Int

    /// Links a provider's subject to a user; ``StorageError/Code/duplicate`` when the
    /// subject is linked already (to this user or another).
    func insertIdentityLink(_ link: IdentityLinkRecord) async throws(StorageError)
    func identityLink(issuer: String, subject: String) async throws(StorageError) -> IdentityLinkRecord?
    func identityLinks(username: String) async throws(StorageError) -> [IdentityLinkRecord]
    /// Removes the link if it names `username`; `false` when there was none.
    func deleteIdentityLink(issuer: String, subject: String, username: String) async throws(StorageError) -> Bool

    func insertFederatedSignIn(_ signIn: FederatedSignInRecord) async throws(StorageError)
    /// The sign-in whose state has this hash, removed as it is read: two returns of one
    /// sign-in never both finish it.
    func takeFederatedSignIn(stateHash: Data) async throws(StorageError) -> FederatedSignInRecord?

    func insertProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError)
    /// Binds the grant made with the code or device code of hash `originHash` to the
    /// refresh token family its redemption started.
    func bindProviderGrant(originHash: Data, familyID: String) async throws(StorageError)
    func providerGrant(familyID: String) async throws(StorageError) -> ProviderGrantRecord?
    /// Stores what a refresh at the provider gave (its next refresh token, its access
    /// token's end).
    func updateProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError)

    func insertDeviceCookie(_ cookie: DeviceCookieRecord) async throws(StorageError)
    func deviceCookie(tokenHash: Data) async throws(StorageError) -> DeviceCookieRecord?

    func device(appID: String, username: String, deviceID: String) async throws(StorageError) -> DeviceRecord?
    func device(appID: String, registrationID: String) async throws(StorageError) -> DeviceRecord?
    func devices(appID: String) async throws(StorageError) -> [DeviceRecord]
    /// Every registration of a user, in every app.
    func devices(username: String) async throws(StorageError) -> [DeviceRecord]
    /// Inserts the registration, or replaces the one with the same app, user and device.
    func saveDevice(_ device: DeviceRecord) async throws(StorageError)
    func touchDevice(registrationID: String, at date: Date) async throws(StorageError)

    /// Inserts the entries, then drops the oldest of each device they came from past
    /// `retention`, in one transaction.
    func insertLogs(_ logs: [LogRecord], retention: LogRetention) async throws(StorageError)
    func logs(appID: String, limit: Int) async throws(StorageError) -> [LogRecord]

    /// The entities of one entity set of an app, ordered by ID.
    func entities(appID: String, entitySet: String) async throws(StorageError) -> [EntityRecord]
    /// Stores `entity`: a new one with version 1, unless its set holds `limit` entities
    /// already (``StorageError/Code/limitReached``); an existing one with its version one
    /// more than the stored one. Returns the entity as stored and whether it is new.
    func putEntity(_ entity: EntityRecord, limit: Int) async throws(StorageError) -> (EntityRecord, created: Bool)
    /// Removes an entity; `false` when there was none.
    func deleteEntity(appID: String, entitySet: String, id: String) async throws(StorageError) -> Bool

    /// Ends verified changes exactly once, in order, in one transaction that every other
    /// write of their entity sets and every other change of their registrations, in any
    /// process, waits for. For each change:
    ///
    /// 1. a change ID on record (before, or earlier in the batch) gets its first result
    ///    back as a duplicate, and nothing changes;
    /// 2. a sequence number the registration used for another change is rejected
    ///    (`SEQUENCE_REUSED`);
    /// 3. otherwise `decide` gets the change and its entity as stored (`nil` when there is
    ///    none, and with the batch's earlier changes applied) and returns the merge to
    ///    write, or throws a rejection; a new entity past `limit` entities in its set is
    ///    rejected (`ENTITY_SET_FULL`).
    ///
    /// Each entity and result are written together; the result is recorded under the
    /// change ID whatever it is. Nothing of the batch is written unless all of it is.
    ///
    /// - Returns: One result per change, in the batch's order.
    func applyChanges(
        _ batch: [ChangeApplication],
        limit: Int,
        decide: @escaping @Sendable (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) async throws(StorageError) -> [ChangeResult]

    /// The newest changes recorded for an app, newest first, of one outcome when given.
    func changes(
        appID: String,
        outcome: ChangeResult.Outcome?,
        limit: Int
    ) async throws(StorageError) -> [RecordedChange]
}

extension ServerStorage {
    /// Ends one verified change exactly once: a batch of one (see
    /// ``applyChanges(_:limit:decide:)``).
    public func applyChange(
        _ application: ChangeApplication,
        limit: Int,
        decide: @escaping @Sendable (EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) async throws(StorageError) -> ChangeResult {
        let results = try await applyChanges([application], limit: limit) { _, current throws(ChangeRejection) in
            try decide(current)
        }
        guard let result = results.first else { throw StorageError(.unavailable, "the change was not ended") }
        return result
    }

    /// Runs `body` with a connection pool of its own running (see
    /// ``makeConnectionPool()``), and stops the pool when `body` returns or throws.
    public func withConnections<Result: Sendable>(
        _ body: () async throws -> Result
    ) async throws -> Result {
        guard let pool = makeConnectionPool() else { return try await body() }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await pool.run() }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}

/// The database behind a ``ServerStorage``.
public enum StorageKind: String, Sendable {
    case sqlite
    case postgresql
}

/// A storage failure. New cases may be added.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A row with the same key exists.
        case duplicate
        /// The database could not be reached or refused the operation.
        case unavailable
        /// A stored row could not be read back.
        case corrupt
        /// The database cannot hold a value it was given (PostgreSQL text and NUL).
        case invalidText
        /// A set is full: the write would pass a limit the caller gave.
        case limitReached
    }

    public var code: Code
    /// What failed, without any stored value.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

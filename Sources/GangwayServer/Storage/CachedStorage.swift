import Foundation
import GangwayProtocol
import ServiceLifecycle
import Synchronization

/// Keeps the reads every device request makes (the app, the session, the device
/// registration, and the entity set a device reads) in memory for a short time, in front
/// of any ``ServerStorage``.
///
/// A write through this process drops what it changes at once. A write by another
/// process sharing the database is seen when the entry expires: with the default of one
/// second, a token revoked, a device locked or a policy changed on one process takes
/// effect on the others within a second.
public final class CachedStorage: ServerStorage {
    private let base: any ServerStorage
    private let lifetime: Duration
    /// Time since the cache was made, on the injected monotonic clock.
    private let elapsed: @Sendable () -> Duration
    private let state = Mutex(Entries())
    /// Entries kept per kind before the cache starts over; bounds memory under load.
    private let capacity: Int

    private struct Entries {
        var apps: [String: Entry<AppRecord?>] = [:]
        var sessions: [Data: Entry<SessionRecord?>] = [:]
        var devices: [DeviceKey: Entry<DeviceRecord?>] = [:]
        var entitySets: [EntitySetKey: Entry<[EntityRecord]>] = [:]
        var secrets: [String: Entry<Data?>] = [:]
    }

    private struct EntitySetKey: Hashable {
        var appID: String
        var entitySet: String
    }

    private struct Entry<Value> {
        var value: Value
        var expires: Duration
    }

    private struct DeviceKey: Hashable {
        var appID: String
        var username: String
        var deviceID: String
    }

    /// - Parameter clock: The monotonic clock entries expire by.
    public init(
        _ base: any ServerStorage,
        lifetime: Duration = .seconds(1),
        capacity: Int = 10_000,
        clock: some Clock<Duration> = ContinuousClock()
    ) {
        self.base = base
        self.lifetime = lifetime
        self.capacity = capacity
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
    }

    public var kind: StorageKind { base.kind }
    public func migrate() async throws(StorageError) { try await base.migrate() }
    public func makeConnectionPool() -> (any Service)? { base.makeConnectionPool() }

    // MARK: Cached reads

    public func app(id: String) async throws(StorageError) -> AppRecord? {
        if let hit = state.withLock({ fresh($0.apps[id]) }) { return hit }
        let app = try await base.app(id: id)
        remember { $0.apps[id] = Entry(value: app, expires: $1) }
        return app
    }

    public func session(tokenHash: Data) async throws(StorageError) -> SessionRecord? {
        if let hit = state.withLock({ fresh($0.sessions[tokenHash]) }) { return hit }
        let session = try await base.session(tokenHash: tokenHash)
        remember { $0.sessions[tokenHash] = Entry(value: session, expires: $1) }
        return session
    }

    public func device(appID: String, username: String, deviceID: String) async throws(StorageError) -> DeviceRecord? {
        let key = DeviceKey(appID: appID, username: username, deviceID: deviceID)
        if let hit = state.withLock({ fresh($0.devices[key]) }) { return hit }
        let device = try await base.device(appID: appID, username: username, deviceID: deviceID)
        remember { $0.devices[key] = Entry(value: device, expires: $1) }
        return device
    }

    /// Cached, so that a secret another process replaced (the admin token's hash, after
    /// `--new-admin-token`) is seen here within the cache lifetime.
    public func secret(named name: String) async throws(StorageError) -> Data? {
        if let hit = state.withLock({ fresh($0.secrets[name]) }) { return hit }
        let value = try await base.secret(named: name)
        remember { $0.secrets[name] = Entry(value: value, expires: $1) }
        return value
    }

    /// The cached value (itself possibly `nil`: "no such row"), or `nil` when not cached.
    private func fresh<Value>(_ entry: Entry<Value>?) -> Value? {
        guard let entry, entry.expires > elapsed() else { return nil }
        return .some(entry.value)
    }

    private func remember(_ store: (inout Entries, Duration) -> Void) {
        let expires = elapsed() + lifetime
        state.withLock { entries in
            if entries.apps.count >= capacity { entries.apps.removeAll(keepingCapacity: true) }
            if entries.sessions.count >= capacity { entries.sessions.removeAll(keepingCapacity: true) }
            if entries.devices.count >= capacity { entries.devices.removeAll(keepingCapacity: true) }
            if entries.entitySets.count >= capacity { entries.entitySets.removeAll(keepingCapacity: true) }
            store(&entries, expires)
        }
    }

    // MARK: Writes that drop what they change

    public func insertApp(_ app: AppRecord) async throws(StorageError) {
        defer { state.withLock { _ = $0.apps.removeValue(forKey: app.id) } }
        try await base.insertApp(app)
    }

    public func updateApp(_ app: AppRecord) async throws(StorageError) {
        defer { state.withLock { _ = $0.apps.removeValue(forKey: app.id) } }
        try await base.updateApp(app)
    }

    public func insertSession(_ session: SessionRecord) async throws(StorageError) {
        defer { state.withLock { _ = $0.sessions.removeValue(forKey: session.tokenHash) } }
        try await base.insertSession(session)
    }

    public func revokeSession(tokenHash: Data) async throws(StorageError) {
        defer { state.withLock { _ = $0.sessions.removeValue(forKey: tokenHash) } }
        try await base.revokeSession(tokenHash: tokenHash)
    }

    public func revokeSessions(username: String, appID: String?, deviceID: String?) async throws(StorageError) {
        // The cache is keyed by token hash; drop every session rather than miss one.
        defer { state.withLock { $0.sessions.removeAll() } }
        try await base.revokeSessions(username: username, appID: appID, deviceID: deviceID)
    }

    public func insertDeviceGrant(_ grant: DeviceGrantRecord) async throws(StorageError) {
        try await base.insertDeviceGrant(grant)
    }

    public func deviceGrant(deviceCodeHash: Data) async throws(StorageError) -> DeviceGrantRecord? {
        try await base.deviceGrant(deviceCodeHash: deviceCodeHash)
    }

    public func deviceGrant(userCode: String) async throws(StorageError) -> DeviceGrantRecord? {
        try await base.deviceGrant(userCode: userCode)
    }

    public func updateDeviceGrant(
        _ grant: DeviceGrantRecord,
        expecting expected: DeviceGrantRecord.Status
    ) async throws(StorageError) -> Bool {
        try await base.updateDeviceGrant(grant, expecting: expected)
    }

    public func insertAuthorizationCode(_ code: AuthorizationCodeRecord) async throws(StorageError) {
        try await base.insertAuthorizationCode(code)
    }

    public func authorizationCode(codeHash: Data) async throws(StorageError) -> AuthorizationCodeRecord? {
        try await base.authorizationCode(codeHash: codeHash)
    }

    public func redeemAuthorizationCode(
        codeHash: Data,
        familyID: String,
        at date: Date
    ) async throws(StorageError) -> Bool {
        try await base.redeemAuthorizationCode(codeHash: codeHash, familyID: familyID, at: date)
    }

    public func insertRefreshToken(_ token: RefreshTokenRecord) async throws(StorageError) -> Bool {
        try await base.insertRefreshToken(token)
    }

    public func refreshToken(tokenHash: Data) async throws(StorageError) -> RefreshTokenRecord? {
        try await base.refreshToken(tokenHash: tokenHash)
    }

    public func spendRefreshToken(tokenHash: Data, at date: Date) async throws(StorageError) -> Bool {
        try await base.spendRefreshToken(tokenHash: tokenHash, at: date)
    }

    public func insertIdentityLink(_ link: IdentityLinkRecord) async throws(StorageError) {
        try await base.insertIdentityLink(link)
    }

    public func identityLink(issuer: String, subject: String) async throws(StorageError) -> IdentityLinkRecord? {
        try await base.identityLink(issuer: issuer, subject: subject)
    }

    public func identityLinks(username: String) async throws(StorageError) -> [IdentityLinkRecord] {
        try await base.identityLinks(username: username)
    }

    public func deleteIdentityLink(
        issuer: String,
        subject: String,
        username: String
    ) async throws(StorageError) -> Bool {
        try await base.deleteIdentityLink(issuer: issuer, subject: subject, username: username)
    }

    public func insertFederatedSignIn(_ signIn: FederatedSignInRecord) async throws(StorageError) {
        try await base.insertFederatedSignIn(signIn)
    }

    public func takeFederatedSignIn(stateHash: Data) async throws(StorageError) -> FederatedSignInRecord? {
        try await base.takeFederatedSignIn(stateHash: stateHash)
    }

    public func insertProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError) {
        try await base.insertProviderGrant(grant)
    }

    public func bindProviderGrant(originHash: Data, familyID: String) async throws(StorageError) {
        try await base.bindProviderGrant(originHash: originHash, familyID: familyID)
    }

    public func providerGrant(familyID: String) async throws(StorageError) -> ProviderGrantRecord? {
        try await base.providerGrant(familyID: familyID)
    }

    public func updateProviderGrant(_ grant: ProviderGrantRecord) async throws(StorageError) {
        try await base.updateProviderGrant(grant)
    }

    @discardableResult
    public func purgeExpired(at now: Date) async throws(StorageError) -> Int {
        try await base.purgeExpired(at: now)
    }

    public func revokeRefreshFamily(_ familyID: String) async throws(StorageError) {
        // The family's sessions are keyed by hashes this cache cannot name; drop them all.
        defer { state.withLock { $0.sessions.removeAll() } }
        try await base.revokeRefreshFamily(familyID)
    }

    public func saveDevice(_ device: DeviceRecord) async throws(StorageError) {
        defer { state.withLock { $0.devices.removeAll() } }
        try await base.saveDevice(device)
    }

    public func touchDevice(registrationID: String, at date: Date) async throws(StorageError) {
        defer { state.withLock { $0.devices.removeAll() } }
        try await base.touchDevice(registrationID: registrationID, at: date)
    }

    // MARK: Passed through

    public func secret(named name: String, orInsert value: Data) async throws(StorageError) -> Data {
        try await base.secret(named: name, orInsert: value)
    }

    public func setSecret(named name: String, to value: Data) async throws(StorageError) {
        defer { state.withLock { _ = $0.secrets.removeValue(forKey: name) } }
        try await base.setSecret(named: name, to: value)
    }

    public func apps() async throws(StorageError) -> [AppRecord] { try await base.apps() }

    public func app(forEmailDomain domain: String) async throws(StorageError) -> AppRecord? {
        try await base.app(forEmailDomain: domain)
    }

    public func insertUser(_ user: UserRecord) async throws(StorageError) { try await base.insertUser(user) }
    public func user(named username: String) async throws(StorageError) -> UserRecord? {
        try await base.user(named: username)
    }
    public func users() async throws(StorageError) -> [UserRecord] { try await base.users() }
    public func updateUser(_ user: UserRecord) async throws(StorageError) { try await base.updateUser(user) }

    public func updateSignInAttempts<Result: Sendable>(
        username: String,
        keys: [String],
        _ update: @escaping @Sendable ([String: SignInAttempts]) -> (SignInAttemptsChange, Result)
    ) async throws(StorageError) -> Result {
        try await base.updateSignInAttempts(username: username, keys: keys, update)
    }

    public func insertDeviceCookie(_ cookie: DeviceCookieRecord) async throws(StorageError) {
        try await base.insertDeviceCookie(cookie)
    }

    public func deviceCookie(tokenHash: Data) async throws(StorageError) -> DeviceCookieRecord? {
        try await base.deviceCookie(tokenHash: tokenHash)
    }

    public func device(appID: String, registrationID: String) async throws(StorageError) -> DeviceRecord? {
        try await base.device(appID: appID, registrationID: registrationID)
    }

    public func devices(appID: String) async throws(StorageError) -> [DeviceRecord] {
        try await base.devices(appID: appID)
    }

    public func devices(username: String) async throws(StorageError) -> [DeviceRecord] {
        try await base.devices(username: username)
    }
    public func insertLogs(_ logs: [LogRecord], retention: LogRetention) async throws(StorageError) {
        try await base.insertLogs(logs, retention: retention)
    }

    public func logs(appID: String, limit: Int) async throws(StorageError) -> [LogRecord] {
        try await base.logs(appID: appID, limit: limit)
    }

    public func entities(appID: String, entitySet: String) async throws(StorageError) -> [EntityRecord] {
        let key = EntitySetKey(appID: appID, entitySet: entitySet)
        if let hit = state.withLock({ fresh($0.entitySets[key]) }) { return hit }
        let entities = try await base.entities(appID: appID, entitySet: entitySet)
        remember { $0.entitySets[key] = Entry(value: entities, expires: $1) }
        return entities
    }

    public func putEntity(
        _ entity: EntityRecord,
        limit: Int
    ) async throws(StorageError) -> (EntityRecord, created: Bool) {
        let key = EntitySetKey(appID: entity.appID, entitySet: entity.entitySet)
        defer { state.withLock { _ = $0.entitySets.removeValue(forKey: key) } }
        return try await base.putEntity(entity, limit: limit)
    }

    public func deleteEntity(appID: String, entitySet: String, id: String) async throws(StorageError) -> Bool {
        let key = EntitySetKey(appID: appID, entitySet: entitySet)
        defer { state.withLock { _ = $0.entitySets.removeValue(forKey: key) } }
        return try await base.deleteEntity(appID: appID, entitySet: entitySet, id: id)
    }

    public func applyChanges(
        _ batch: [ChangeApplication],
        limit: Int,
        decide: @escaping @Sendable (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) async throws(StorageError) -> [ChangeResult] {
        let keys = Set(batch.map { EntitySetKey(appID: $0.appID, entitySet: $0.change.entitySet) })
        defer { state.withLock { for key in keys { _ = $0.entitySets.removeValue(forKey: key) } } }
        return try await base.applyChanges(batch, limit: limit, decide: decide)
    }

    public func changes(
        appID: String,
        outcome: ChangeResult.Outcome?,
        limit: Int
    ) async throws(StorageError) -> [RecordedChange] {
        try await base.changes(appID: appID, outcome: outcome, limit: limit)
    }
}

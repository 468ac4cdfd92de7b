import Foundation
import GangwayProtocol
import GangwayServerStorage

/// The server's storage as plain dictionaries: what ``ServerStorage`` documents, written
/// as plainly as possible, for the model-based tests to hold both databases to.
///
/// It covers users, sessions, sign-in attempts, device cookies, device registrations,
/// entities, offline changes and refresh tokens, and what ``ServerStorage/purgeExpired(at:)``
/// deletes of them. Apps are left to the database (the tests insert theirs first).
struct StorageModel {
    /// A mistake made on purpose, to show that a sequence the model then fails on
    /// shrinks to a short one.
    enum Flaw: Sendable {
        /// A change ID on record is taken for a new change: duplicates are ended again.
        case forgetsChangeIDs
    }

    /// A recorded change as both the model and the databases show it (the storage's
    /// ``RecordedChange`` has no public initializer).
    struct RecordedRow: Hashable, CustomStringConvertible {
        var appID: String
        var registrationID: String
        var author: String
        var carrier: String
        var entitySet: String
        var entityID: String
        var result: ChangeResult
        var receivedAt: Date

        init(_ application: ChangeApplication, result: ChangeResult) {
            appID = application.appID
            registrationID = application.change.registrationID
            author = application.change.author
            carrier = application.carrier
            entitySet = application.change.entitySet
            entityID = application.change.entityID
            self.result = result
            receivedAt = application.receivedAt
        }

        init(_ recorded: RecordedChange) {
            appID = recorded.appID
            registrationID = recorded.registrationID
            author = recorded.author
            carrier = recorded.carrier
            entitySet = recorded.entitySet
            entityID = recorded.entityID
            result = recorded.result
            receivedAt = recorded.receivedAt
        }

        var description: String {
            "\(entitySet)/\(entityID) by \(author) via \(carrier) on \(registrationID): \(Self.describe(result))"
        }

        /// A result in a few words: `duplicate of rejected ENTITY_NOT_FOUND`, `conflict v3 [note]`.
        static func describe(_ result: ChangeResult) -> String {
            result.outcome.rawValue
                + (result.original.map { " of \($0.rawValue)" } ?? "")
                + (result.rejection.map { " \($0.code)" } ?? "")
                + (result.version.map { " v\($0)" } ?? "")
                + (result.conflicts.isEmpty ? "" : " \(result.conflicts.map(\.field))")
        }
    }

    private struct EntityKey: Hashable {
        var appID: String
        var entitySet: String
        var id: String
    }

    private struct SetKey: Hashable {
        var appID: String
        var entitySet: String
    }

    private struct StoredEntity {
        var record: EntityRecord
        /// The user who created it, whose creations count it; `nil` for the admin's.
        var createdBy: String?
    }

    /// How long past its end each kind of expiring row is kept.
    private enum Kept {
        static let sessions: TimeInterval = 24 * 60 * 60
        static let refreshTokens: TimeInterval = 0
        static let signInAttempts: TimeInterval = 24 * 60 * 60
        static let deviceCookies: TimeInterval = 180 * 24 * 60 * 60
    }

    var flaw: Flaw?
    /// What happened that the tests want the generator to reach (a duplicate, a
    /// conflict, a full set, a purge), by name.
    private(set) var events: Set<String> = []

    private var usersByName: [String: UserRecord] = [:]
    private var sessions: [Data: SessionRecord] = [:]
    private var attempts: [String: SignInAttempts] = [:]
    private var cookies: [Data: DeviceCookieRecord] = [:]
    /// By registration ID.
    private var devices: [String: DeviceRecord] = [:]
    private var entities: [EntityKey: StoredEntity] = [:]
    /// The removed entities' tombstones: where each removal stands in its set's log, and when.
    private var tombstones: [EntityKey: (position: Int64, removedAt: Date, key: String?)] = [:]
    /// Each move of an entity out of its set's subset value, at its write's position.
    private var moves: [(set: SetKey, id: String, position: Int64, old: String, new: String?, at: Date)] = []
    /// Each set's last position given, and the last a purge forgot.
    private var lastPositions: [SetKey: Int64] = [:]
    private var purgedThrough: [SetKey: Int64] = [:]
    /// Each set's schema, if it has one.
    private var schemas: [SetKey: EntitySchema] = [:]
    /// The entities the upload being applied changed, in the order it first changed them.
    private var changedInBatch: [EntityKey] = []
    /// Oldest first.
    private var recorded: [RecordedRow] = []
    /// The first result of each change ID.
    private var results: [UUID: ChangeResult] = [:]
    /// The sequence numbers each registration used, as `registration#sequence`.
    private var sequences: Set<String> = []
    private var refreshTokens: [Data: RefreshTokenRecord] = [:]

    init(flaw: Flaw? = nil) {
        self.flaw = flaw
    }

    private mutating func note(_ event: String) {
        events.insert(event)
    }

    // MARK: Users

    mutating func insertUser(_ user: UserRecord) throws(StorageError) {
        guard usersByName[user.username] == nil else {
            note("duplicate user")
            throw StorageError(.duplicate, "the user exists")
        }
        usersByName[user.username] = user
    }

    func user(named username: String) -> UserRecord? {
        usersByName[username]
    }

    /// Every user, ordered by user name.
    func users() -> [UserRecord] {
        usersByName.values.sorted { $0.username < $1.username }
    }

    /// Changes the display name, password hash and block of a user there is; the rest stays.
    mutating func updateUser(_ user: UserRecord) {
        usersByName[user.username]?.displayName = user.displayName
        usersByName[user.username]?.passwordHash = user.passwordHash
        usersByName[user.username]?.blocked = user.blocked
    }

    // MARK: Sessions

    mutating func insertSession(_ session: SessionRecord) throws(StorageError) {
        guard sessions[session.tokenHash] == nil else {
            note("duplicate session")
            throw StorageError(.duplicate, "the session exists")
        }
        sessions[session.tokenHash] = session
    }

    func session(tokenHash: Data) -> SessionRecord? {
        sessions[tokenHash]
    }

    mutating func revokeSession(tokenHash: Data) {
        sessions[tokenHash]?.revoked = true
    }

    /// Revokes the sessions and refresh tokens of a user, of one app and device when given.
    mutating func revokeSessions(username: String, appID: String?, deviceID: String?) {
        func matches(_ owner: String, _ app: String, _ device: String) -> Bool {
            owner == username && (appID == nil || app == appID) && (deviceID == nil || device == deviceID)
        }
        for (hash, session) in sessions where matches(session.username, session.appID, session.deviceID) {
            sessions[hash]?.revoked = true
        }
        for (hash, token) in refreshTokens where matches(token.username, token.appID, token.deviceID) {
            refreshTokens[hash]?.revoked = true
        }
    }

    // MARK: Sign-in attempts and device cookies

    /// Reads the attempts under `keys`, stores what `update` saves, then forgets what it
    /// clears.
    mutating func updateSignInAttempts<Result>(
        keys: [String],
        _ update: ([String: SignInAttempts]) -> (SignInAttemptsChange, Result)
    ) -> Result {
        var current: [String: SignInAttempts] = [:]
        for key in keys { current[key] = attempts[key] }
        let (change, result) = update(current)
        for saved in change.save { attempts[saved.key] = saved }
        for key in change.clear { attempts[key] = nil }
        return result
    }

    mutating func insertDeviceCookie(_ cookie: DeviceCookieRecord) throws(StorageError) {
        guard cookies[cookie.tokenHash] == nil else { throw StorageError(.duplicate, "the cookie exists") }
        cookies[cookie.tokenHash] = cookie
    }

    func deviceCookie(tokenHash: Data) -> DeviceCookieRecord? {
        cookies[tokenHash]
    }

    // MARK: Devices

    func device(appID: String, username: String, deviceID: String) -> DeviceRecord? {
        devices.values.first { $0.appID == appID && $0.username == username && $0.deviceID == deviceID }
    }

    func device(appID: String, registrationID: String) -> DeviceRecord? {
        devices[registrationID].flatMap { $0.appID == appID ? $0 : nil }
    }

    /// The registrations of an app, in the order they were registered (then by ID).
    func devices(appID: String) -> [DeviceRecord] {
        Self.inRegistrationOrder(devices.values.filter { $0.appID == appID })
    }

    func devices(username: String) -> [DeviceRecord] {
        Self.inRegistrationOrder(devices.values.filter { $0.username == username })
    }

    private static func inRegistrationOrder(_ devices: [DeviceRecord]) -> [DeviceRecord] {
        devices.sorted { ($0.registeredAt, $0.registrationID) < ($1.registeredAt, $1.registrationID) }
    }

    /// Inserts the registration, or replaces the one with the same app, user and device;
    /// a registration ID on record keeps its app, user, device and registration time.
    mutating func saveDevice(_ device: DeviceRecord) {
        for other in devices.values
        where other.appID == device.appID && other.username == device.username && other.deviceID == device.deviceID
            && other.registrationID != device.registrationID
        {
            note("registration replaced")
            devices[other.registrationID] = nil
        }
        guard var stored = devices[device.registrationID] else {
            devices[device.registrationID] = device
            return
        }
        if stored.status != device.status { note("registration \(device.status.rawValue)") }
        stored.deviceName = device.deviceName
        stored.platform = device.platform
        stored.appVersion = device.appVersion
        stored.status = device.status
        stored.statusChangedAt = device.statusChangedAt
        stored.recoverySecret = device.recoverySecret
        stored.lastContactAt = device.lastContactAt
        stored.changeKey = device.changeKey
        devices[device.registrationID] = stored
    }

    mutating func touchDevice(registrationID: String, at date: Date) {
        devices[registrationID]?.lastContactAt = date
    }

    // MARK: Entities

    /// The entities of one set, ordered by ID.
    func entities(appID: String, entitySet: String) -> [EntityRecord] {
        entities.values.map(\.record).filter { $0.appID == appID && $0.entitySet == entitySet }.sorted { $0.id < $1.id }
    }

    private func count(appID: String, entitySet: String, createdBy author: String? = nil) -> Int {
        entities.values.count {
            $0.record.appID == appID && $0.record.entitySet == entitySet && (author == nil || $0.createdBy == author)
        }
    }

    /// Stores `entity` at version 1 when new (unless its set holds `limit` already), or
    /// at one more than the stored version; each field records the version at which its
    /// value last changed or went.
    mutating func putEntity(_ entity: EntityRecord, limit: Int) throws(StorageError) -> (EntityRecord, created: Bool) {
        let key = EntityKey(appID: entity.appID, entitySet: entity.entitySet, id: entity.id)
        let previous = entities[key]
        if let schema = schemas[SetKey(appID: entity.appID, entitySet: entity.entitySet)] {
            do throws(EntitySchemaError) {
                try schema.check(entity.fields, in: entity.entitySet)
            } catch {
                note("put refused by the schema")
                throw StorageError(.notValid, error.message)
            }
        }
        if previous == nil, count(appID: entity.appID, entitySet: entity.entitySet) >= limit {
            note("put into a full set")
            throw StorageError(.limitReached, "the entity set is full")
        }
        var saved = entity
        saved.version = (previous?.record.version ?? 0) + 1
        saved.fieldVersions = Self.fieldVersions(of: entity.fields, replacing: previous?.record, at: saved.version)
        saved.position = takePosition(entity.appID, entity.entitySet)
        if tombstones.removeValue(forKey: key) != nil { note("wrote over a removal") }
        noteMove(of: saved, from: previous?.record)
        entities[key] = StoredEntity(record: saved, createdBy: previous?.createdBy)
        return (saved, previous == nil)
    }

    /// The set's subset value of `record`, if the set has a subset.
    private func subsetKey(_ record: EntityRecord?) -> String? {
        guard let record, let subset = schemas[SetKey(appID: record.appID, entitySet: record.entitySet)]?.subset,
            let value = record.fields[subset.field], !value.isEmpty
        else { return nil }
        return value
    }

    /// Records the move of `written` out of the value `previous` had, if it moved.
    private mutating func noteMove(of written: EntityRecord, from previous: EntityRecord?) {
        guard let old = subsetKey(previous), old != subsetKey(written) else { return }
        let set = SetKey(appID: written.appID, entitySet: written.entitySet)
        moves.append((set, written.id, written.position, old, subsetKey(written), written.updatedAt))
        note("moved out of a subset value")
    }

    private mutating func takePosition(_ appID: String, _ entitySet: String) -> Int64 {
        let set = SetKey(appID: appID, entitySet: entitySet)
        lastPositions[set, default: 0] += 1
        return lastPositions[set, default: 0]
    }

    /// A field whose value is new, or that is gone, gets `version`; the others keep theirs.
    private static func fieldVersions(
        of fields: [String: String],
        replacing previous: EntityRecord?,
        at version: Int64
    ) -> [String: Int64] {
        guard let previous else { return fields.mapValues { _ in version } }
        let old = EntityState(fields: previous.fields, version: previous.version, fieldVersions: previous.fieldVersions)
        var versions: [String: Int64] = [:]
        for name in Set(fields.keys).union(old.fields.keys).union(old.fieldVersions.keys) {
            versions[name] = fields[name] == old.fields[name] ? old.versionOfField(name) : version
        }
        return versions.filter { $0.value > 0 }
    }

    /// The schemas of an app's sets that have one.
    func entitySchemas(appID: String) -> [String: EntitySchema] {
        var found: [String: EntitySchema] = [:]
        for (set, schema) in schemas where set.appID == appID { found[set.entitySet] = schema }
        return found
    }

    /// Gives a set `schema` (or none), unless entities of the set do not fit it: then how
    /// many do not, and the first by position, with its reason.
    mutating func setEntitySchema(_ schema: EntitySchema?, appID: String, entitySet: String) -> EntitySchemaMisfit? {
        let set = SetKey(appID: appID, entitySet: entitySet)
        if let schema, !schema.keepsEveryEntity(of: schemas[set]) {
            var misfit: EntitySchemaMisfit?
            for entity in entities.values.map(\.record).filter({ $0.appID == appID && $0.entitySet == entitySet })
                .sorted(by: { $0.position < $1.position })
            {
                do throws(EntitySchemaError) {
                    try schema.check(entity.fields, in: entitySet)
                } catch {
                    if misfit == nil { misfit = EntitySchemaMisfit(count: 0, firstID: entity.id, reason: error) }
                    misfit?.count += 1
                }
            }
            if let misfit {
                note("schema refused")
                return misfit
            }
        }
        note(schema == nil ? "schema removed" : "schema set")
        let keyedBefore = schemas[set]?.subset?.field
        schemas[set] = schema
        if keyedBefore != schema?.subset?.field {
            // Tombstones hold no fields to key again; the set's moves were of the old field.
            for (key, tombstone) in tombstones where key.appID == appID && key.entitySet == entitySet {
                tombstones[key] = (tombstone.position, tombstone.removedAt, nil)
            }
            moves.removeAll { $0.set == set }
            note("subset field changed")
        }
        return nil
    }

    /// Removes the entity, leaving a tombstone at the set's next position.
    mutating func deleteEntity(appID: String, entitySet: String, id: String, at date: Date) -> Bool {
        let key = EntityKey(appID: appID, entitySet: entitySet, id: id)
        guard let removed = entities.removeValue(forKey: key) else { return false }
        tombstones[key] = (takePosition(appID, entitySet), date, subsetKey(removed.record))
        note("removed an entity")
        return true
    }

    /// Forgets the tombstones of removals before `date`; each set remembers the last
    /// position forgotten.
    mutating func purgeRemovals(before date: Date) -> Int {
        let forgotten = tombstones.filter { $0.value.removedAt < date }
        for (key, tombstone) in forgotten {
            let set = SetKey(appID: key.appID, entitySet: key.entitySet)
            purgedThrough[set] = max(purgedThrough[set, default: 0], tombstone.position)
            tombstones[key] = nil
        }
        for move in moves where move.at < date {
            purgedThrough[move.set] = max(purgedThrough[move.set, default: 0], move.position)
        }
        moves.removeAll { $0.at < date }
        if !forgotten.isEmpty { note("purged removals") }
        return forgotten.count
    }

    /// A page of a set's change log: every entity's last write and every tombstone past
    /// `after`, through `through` (the last position when `nil`), by position.
    func entityLog(
        appID: String,
        entitySet: String,
        after: Int64,
        through: Int64?,
        includingRemovals: Bool,
        subset: Set<String>? = nil,
        limit: Int
    ) -> EntityLogPage {
        let set = SetKey(appID: appID, entitySet: entitySet)
        let last = lastPositions[set, default: 0]
        let end = through ?? last
        func within(_ key: String?) -> Bool { subset.map { keys in key.map(keys.contains) ?? false } ?? true }
        var entries: [EntityLogPage.Entry] = entities.filter {
            $0.key.appID == appID && $0.key.entitySet == entitySet && within(subsetKey($0.value.record))
        }
        .map { .written($0.value.record) }
        if includingRemovals {
            entries += tombstones.filter {
                $0.key.appID == appID && $0.key.entitySet == entitySet && within($0.value.key)
            }
            .map { .removed(id: $0.key.id, position: $0.value.position, removedAt: $0.value.removedAt) }
            if let subset, !subset.isEmpty {
                entries += moves.filter { move in
                    move.set == set && subset.contains(move.old) && !(move.new.map(subset.contains) ?? false)
                }
                .map { .removed(id: $0.id, position: $0.position, removedAt: $0.at) }
            }
        }
        entries = entries.filter { $0.position > after && $0.position <= end }.sorted { $0.position < $1.position }
        return EntityLogPage(
            entries: Array(entries.prefix(limit)),
            hasMore: entries.count > limit,
            lastPosition: last,
            purgedThrough: purgedThrough[set, default: 0]
        )
    }

    // MARK: Changes

    /// Ends each change in order, as ``ServerStorage/applyChanges(_:limit:decide:)``
    /// documents: a change ID on record answers its first result as a duplicate; a
    /// sequence number the registration used is rejected; otherwise `decide` merges, a new
    /// entity past `limit` in its set or past the author's creations is rejected.
    mutating func applyChanges(
        _ batch: [ChangeApplication],
        limit: Int,
        decide: (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) -> [ChangeResult] {
        changedInBatch = []
        let before = entities
        let results = batch.map { apply($0, limit: limit, decide: decide) }
        for key in changedInBatch {
            let position = takePosition(key.appID, key.entitySet)
            entities[key]?.record.position = position
            if tombstones.removeValue(forKey: key) != nil { note("wrote over a removal") }
            if let written = entities[key]?.record { noteMove(of: written, from: before[key]?.record) }
        }
        return results
    }

    private mutating func apply(
        _ application: ChangeApplication,
        limit: Int,
        decide: (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) -> ChangeResult {
        let change = application.change
        if flaw != .forgetsChangeIDs, let first = results[change.id] {
            note("duplicate change")
            return first.asDuplicate
        }
        let result = decideResult(application, limit: limit, decide: decide)
        switch result.outcome {
        case .rejected: note("rejected \(result.rejection?.code.rawValue ?? "?")")
        case .conflict: note("conflict")
        default: note(result.outcome.rawValue)
        }
        results[change.id] = result
        recorded.append(RecordedRow(application, result: result))
        return result
    }

    private mutating func decideResult(
        _ application: ChangeApplication,
        limit: Int,
        decide: (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome
    ) -> ChangeResult {
        let change = application.change
        guard sequences.insert("\(change.registrationID)#\(change.sequence)").inserted else {
            return ChangeResult(changeID: change.id, rejected: ChangeRejection(.sequenceReused, "reused"))
        }
        let key = EntityKey(appID: application.appID, entitySet: change.entitySet, id: change.entityID)
        let previous = entities[key]
        let merged: FieldMerge.Outcome
        do {
            merged = try decide(
                change,
                previous.map {
                    EntityState(
                        fields: $0.record.fields,
                        version: $0.record.version,
                        fieldVersions: $0.record.fieldVersions
                    )
                }
            )
        } catch {
            return ChangeResult(changeID: change.id, rejected: error)
        }
        if let schema = schemas[SetKey(appID: application.appID, entitySet: change.entitySet)], merged.changedEntity {
            do throws(EntitySchemaError) {
                try schema.check(merged.entity.fields, in: change.entitySet)
            } catch {
                return ChangeResult(changeID: change.id, rejected: ChangeRejection(error))
            }
        }
        if previous == nil {
            if count(appID: application.appID, entitySet: change.entitySet) >= limit {
                return ChangeResult(changeID: change.id, rejected: ChangeRejection(.entitySetFull, "full"))
            }
            if count(appID: application.appID, entitySet: change.entitySet, createdBy: change.author)
                >= EntityLimits.creationsPerAuthor
            {
                return ChangeResult(changeID: change.id, rejected: ChangeRejection(.creationLimitReached, "limit"))
            }
        }
        if !merged.changedFields.isEmpty {
            let record = EntityRecord(
                appID: application.appID,
                entitySet: change.entitySet,
                id: change.entityID,
                fields: merged.entity.fields,
                version: merged.entity.version,
                updatedAt: application.receivedAt,
                updatedBy: change.author,
                fieldVersions: merged.entity.fieldVersions
            )
            if !changedInBatch.contains(key) { changedInBatch.append(key) }
            entities[key] = StoredEntity(
                record: record,
                createdBy: previous == nil ? change.author : previous?.createdBy
            )
        }
        return ChangeResult(
            changeID: change.id,
            outcome: merged.conflicts.isEmpty ? .applied : .conflict,
            version: merged.entity.version,
            conflicts: merged.conflicts
        )
    }

    /// The newest changes recorded for an app, newest first, of one outcome when given.
    func changes(appID: String, outcome: ChangeResult.Outcome?, limit: Int) -> [RecordedRow] {
        Array(
            recorded.reversed().filter { $0.appID == appID && (outcome == nil || $0.result.outcome == outcome) }
                .prefix(limit)
        )
    }

    // MARK: Refresh tokens

    /// Adds the token unless a token of its family is revoked (`false`).
    mutating func insertRefreshToken(_ token: RefreshTokenRecord) throws(StorageError) -> Bool {
        if refreshTokens.values.contains(where: { $0.familyID == token.familyID && $0.revoked }) {
            note("joined a revoked family")
            return false
        }
        guard refreshTokens[token.tokenHash] == nil else { throw StorageError(.duplicate, "the token exists") }
        refreshTokens[token.tokenHash] = token
        return true
    }

    func refreshToken(tokenHash: Data) -> RefreshTokenRecord? {
        refreshTokens[tokenHash]
    }

    /// Marks the token used if it is neither used nor revoked.
    mutating func spendRefreshToken(tokenHash: Data, at date: Date) -> Bool {
        guard let token = refreshTokens[tokenHash], token.usedAt == nil, !token.revoked else {
            if refreshTokens[tokenHash]?.usedAt != nil { note("spent twice") }
            return false
        }
        refreshTokens[tokenHash]?.usedAt = date
        return true
    }

    /// Revokes every token of the family and the sessions they opened.
    mutating func revokeRefreshFamily(_ familyID: String) {
        for token in refreshTokens.values where token.familyID == familyID {
            sessions[token.sessionHash]?.revoked = true
            refreshTokens[token.tokenHash]?.revoked = true
        }
    }

    // MARK: Expiry

    /// Deletes what is of no use at `now`: sessions a day past their end, refresh tokens
    /// past theirs, sign-in counts a day past their window's start, and device cookies
    /// 180 days after they were given. Returns how many rows went.
    mutating func purgeExpired(at now: Date) -> Int {
        let deleted = [
            Self.removeAll(from: &sessions) { $0.expiresAt < now.addingTimeInterval(-Kept.sessions) },
            Self.removeAll(from: &refreshTokens) { $0.expiresAt < now.addingTimeInterval(-Kept.refreshTokens) },
            Self.removeAll(from: &attempts) { $0.windowStart < now.addingTimeInterval(-Kept.signInAttempts) },
            Self.removeAll(from: &cookies) { $0.createdAt < now.addingTimeInterval(-Kept.deviceCookies) },
        ]
        for (kind, count) in zip(["sessions", "refresh tokens", "sign-in attempts", "device cookies"], deleted)
        where count > 0 {
            note("purged \(kind)")
        }
        return deleted.reduce(0, +)
    }

    private static func removeAll<Key, Value>(from rows: inout [Key: Value], where expired: (Value) -> Bool) -> Int {
        let before = rows.count
        rows = rows.filter { !expired($0.value) }
        return before - rows.count
    }
}

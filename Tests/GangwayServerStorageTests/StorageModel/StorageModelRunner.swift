import Foundation
import GangwayProtocol
import GangwayServerStorage

/// Runs a sequence of ``StorageOperation``s against a storage and a ``StorageModel`` side
/// by side: every answer of the storage must be the model's (a failure by its code), and
/// at each `compareState`, and at the end, everything the model holds must read back
/// the same from the storage.
///
/// A sequence runs in a namespace of its own (its user names, app IDs, registration
/// IDs and tokens start with it), so many share one database; it ends with a purge at
/// the end of time, which empties every table it could count (and forgets every removal).
final class StorageModelRunner {
    /// Where the storage and the model first answered differently.
    struct Disagreement: Error, Sendable, CustomStringConvertible {
        /// The operation, from 1; one past the last for the comparison at the end.
        var step: Int
        var call: String
        var expected: String
        var actual: String

        var description: String {
            "at step \(step), \(call):\n    the model answers   \(expected)\n    the storage answers \(actual)"
        }
    }

    private enum Answer<Value: Equatable>: Equatable, CustomStringConvertible {
        case value(Value)
        case failed(StorageError.Code)

        var value: Value? {
            guard case .value(let value) = self else { return nil }
            return value
        }

        var description: String {
            switch self {
            case .value(let results as [ChangeResult]):
                "[" + results.map(StorageModel.RecordedRow.describe).joined(separator: ", ") + "]"
            case .value(let value): "\(value)"
            case .failed(let code): "StorageError.\(code)"
            }
        }
    }

    private struct Stored: Equatable {
        var entity: EntityRecord
        var created: Bool
    }

    /// What devices may write in both entity sets, as an app's settings would say.
    private static let decide: @Sendable (Change, EntityState?) throws(ChangeRejection) -> FieldMerge.Outcome = {
        change,
        current throws(ChangeRejection) in
        try EntitySetRules(writableFields: ["status", "note"], allowsCreation: true).check(change)
        return try FieldMerge.merge(change, into: current)
    }

    let storage: StorageUnderTest.Storage
    let namespace: String
    var model: StorageModel
    var now = Date(timeIntervalSince1970: 1_800_000_000)
    var step = 0
    /// How many names were made, for the next one.
    var made = 0
    var sessionTokens: [Data] = []
    var cookieTokens: [Data] = []
    var registrations: [(id: String, appID: String)] = []
    var changeIDs: [UUID] = []
    var refreshTokens: [Data] = []
    var families: [String] = []
    var attemptKeys: [String] = []
    var floods = 0

    init(storage: StorageUnderTest.Storage, namespace: String, flaw: StorageModel.Flaw?) {
        self.storage = storage
        self.namespace = namespace
        model = StorageModel(flaw: flaw)
    }

    /// Runs `operations`, then compares the whole state and purges everything: `nil`
    /// when the storage agreed with the model throughout, why not otherwise.
    func run(_ operations: [StorageOperation]) async -> Disagreement? {
        do {
            for index in 0..<StorageOperation.apps {
                try await storage.insertApp(AppRecord(id: appID(index), name: "Model \(index)", createdAt: now))
            }
            for (index, operation) in operations.enumerated() {
                step = index + 1
                do {
                    try await perform(operation)
                } catch let disagreement as Disagreement {
                    throw disagreement
                } catch {
                    throw Disagreement(step: step, call: "\(operation)", expected: "an answer", actual: "\(error)")
                }
            }
            step = operations.count + 1
            try await compareState()
            try await agree(
                "purgeExpired(at: the end of time)",
                model: { self.model.purgeExpired(at: .distantFuture) },
                storage: { try await self.storage.purgeExpired(at: .distantFuture) }
            )
            try await agree(
                "purgeRemovals(before: the end of time)",
                model: { self.model.purgeRemovals(before: .distantFuture) },
                storage: { try await self.storage.purgeRemovals(before: .distantFuture) }
            )
            return nil
        } catch {
            // Leave nothing another sequence's purge would count.
            _ = try? await storage.purgeExpired(at: .distantFuture)
            _ = try? await storage.purgeRemovals(before: .distantFuture)
            return error as? Disagreement
                ?? Disagreement(
                    step: step,
                    call: step == 0 ? "setting up" : "comparing at the end",
                    expected: "no error",
                    actual: "\(error)"
                )
        }
    }

    // MARK: Names

    func username(_ index: Int) -> String { "\(namespace)u\(index)" }
    func appID(_ index: Int) -> String { "\(namespace)app\(index)" }
    func deviceID(_ index: Int) -> String { "d\(index)" }

    /// A name never made before in this database, of equal length to the others of its
    /// kind (so both databases order them alike).
    func fresh(_ kind: String) -> String {
        made += 1
        return namespace + kind + String(String(made + 10_000).dropFirst())
    }

    /// The n-th of `made`, counted around; `nil` when there is none.
    func nth<Element>(_ made: [Element], _ index: Int) -> Element? {
        made.isEmpty ? nil : made[index % made.count]
    }

    func later(hours: Int) -> Date {
        now.addingTimeInterval(TimeInterval(hours * 60 * 60))
    }

    // MARK: Comparing

    /// The model's answer, once the storage gave the same.
    @discardableResult
    func agree<Value: Equatable>(
        _ call: @autoclosure () -> String,
        model expected: () throws -> Value,
        storage actual: () async throws -> Value
    ) async throws -> Value? {
        let modelAnswer: Answer<Value>
        do {
            modelAnswer = .value(try expected())
        } catch let error as StorageError {
            modelAnswer = .failed(error.code)
        }
        let storageAnswer: Answer<Value>
        do {
            storageAnswer = .value(try await actual())
        } catch let error as StorageError {
            storageAnswer = .failed(error.code)
        }
        guard modelAnswer == storageAnswer else {
            throw Disagreement(step: step, call: call(), expected: "\(modelAnswer)", actual: "\(storageAnswer)")
        }
        return modelAnswer.value
    }

    /// The same, for a call that answers nothing but may fail.
    func agreeOnEffect(
        _ call: @autoclosure () -> String,
        model expected: () throws -> Void,
        storage actual: () async throws -> Void
    ) async throws {
        try await agree(
            call(),
            model: { () throws -> Bool in
                try expected()
                return true
            },
            storage: { () async throws -> Bool in
                try await actual()
                return true
            }
        )
    }

    // MARK: Operations

    func perform(_ operation: StorageOperation) async throws {
        switch operation {
        case .addUser(let index, let blocked):
            let user = UserRecord(
                username: username(index),
                displayName: "User \(index)",
                passwordHash: "$2b$04$model",
                blocked: blocked,
                createdAt: now
            )
            try await agreeOnEffect(
                "insertUser(\(user.username))",
                model: { try self.model.insertUser(user) },
                storage: { try await self.storage.insertUser(user) }
            )
        case .updateUser(let index, let blocked):
            try await updateUser(index, blocked: blocked)
        case .signIn(let user, let device, let app, let address, let succeeds, let hours, let cookie):
            try await signIn(user, device, app, address: address, succeeds: succeeds, hours: hours, cookie: cookie)
        case .insertSessionAgain(let index):
            guard let hash = nth(sessionTokens, index) else { return }
            let session = SessionRecord(
                tokenHash: hash,
                appID: appID(0),
                username: username(0),
                deviceID: deviceID(0),
                createdAt: now,
                expiresAt: later(hours: 1)
            )
            try await agreeOnEffect(
                "insertSession(again)",
                model: { try self.model.insertSession(session) },
                storage: { try await self.storage.insertSession(session) }
            )
        case .revokeSession(let index):
            let hash = nth(sessionTokens, index) ?? Data("\(namespace)nosession".utf8)
            try await agreeOnEffect(
                "revokeSession",
                model: { self.model.revokeSession(tokenHash: hash) },
                storage: { try await self.storage.revokeSession(tokenHash: hash) }
            )
            try await agree(
                "session(tokenHash:)",
                model: { self.model.session(tokenHash: hash) },
                storage: { try await self.storage.session(tokenHash: hash) }
            )
        case .revokeSessions(let user, let app, let device):
            let (name, app, device) = (username(user), app.map(appID), device.map(deviceID))
            try await agreeOnEffect(
                "revokeSessions(\(name), \(app ?? "nil"), \(device ?? "nil"))",
                model: { self.model.revokeSessions(username: name, appID: app, deviceID: device) },
                storage: { try await self.storage.revokeSessions(username: name, appID: app, deviceID: device) }
            )
        case .register(let user, let device, let app, let renew):
            try await register(user, device, app, renew: renew)
        case .setStatus(let index, let status):
            try await setStatus(index, status)
        case .touch(let index):
            guard let registration = nth(registrations, index) else { return }
            let now = now
            try await agreeOnEffect(
                "touchDevice(\(registration.id))",
                model: { self.model.touchDevice(registrationID: registration.id, at: now) },
                storage: { try await self.storage.touchDevice(registrationID: registration.id, at: now) }
            )
        case .put(let entitySet, let entity, let fields, let limit, let by):
            // The version put is ignored: the storage counts.
            let record = EntityRecord(
                appID: appID(0),
                entitySet: StorageOperation.ChangeSpec.sets[entitySet],
                id: "e\(entity)",
                fields: fields,
                version: 99,
                updatedAt: now,
                updatedBy: by.map(username) ?? "admin"
            )
            try await agree(
                "putEntity(\(record.entitySet)/\(record.id), limit: \(limit))",
                model: {
                    let (entity, created) = try self.model.putEntity(record, limit: limit)
                    return Stored(entity: entity, created: created)
                },
                storage: {
                    let (entity, created) = try await self.storage.putEntity(record, limit: limit)
                    return Stored(entity: entity, created: created)
                }
            )
        case .delete(let entitySet, let entity):
            let (app, set, id) = (appID(0), StorageOperation.ChangeSpec.sets[entitySet], "e\(entity)")
            let now = now
            try await agree(
                "deleteEntity(\(set)/\(id))",
                model: { self.model.deleteEntity(appID: app, entitySet: set, id: id, at: now) },
                storage: { try await self.storage.deleteEntity(appID: app, entitySet: set, id: id, at: now) }
            )
        case .setSchema(let entitySet, let schema):
            let (app, set) = (appID(0), StorageOperation.ChangeSpec.sets[entitySet])
            let declared = try schema.map {
                try EntitySchema(fields: StorageOperation.schemas[$0], subset: StorageOperation.subsets[$0])
            }
            try await agree(
                "setEntitySchema(\(set), \(schema.map(String.init) ?? "none"))",
                model: { self.model.setEntitySchema(declared, appID: app, entitySet: set) },
                storage: { try await self.storage.setEntitySchema(declared, appID: app, entitySet: set) }
            )
        case .upload(let limit, let carrier, let changes):
            try await upload(changes, limit: limit, carrier: carrier)
        case .flood(let author):
            try await flood(author)
        case .issueRefreshToken(let user, let device, let family, let reusedToken, let session, let hours):
            try await issueRefreshToken(user, device, family, reusedToken, session: session, hours: hours)
        case .spendRefreshToken(let index):
            guard let hash = nth(refreshTokens, index) else { return }
            let now = now
            try await agree(
                "spendRefreshToken",
                model: { self.model.spendRefreshToken(tokenHash: hash, at: now) },
                storage: { try await self.storage.spendRefreshToken(tokenHash: hash, at: now) }
            )
            try await agree(
                "refreshToken(tokenHash:)",
                model: { self.model.refreshToken(tokenHash: hash) },
                storage: { try await self.storage.refreshToken(tokenHash: hash) }
            )
        case .revokeFamily(let index):
            guard let family = nth(families, index) else { return }
            try await agreeOnEffect(
                "revokeRefreshFamily(\(family))",
                model: { self.model.revokeRefreshFamily(family) },
                storage: { try await self.storage.revokeRefreshFamily(family) }
            )
        case .advance(let hours):
            now = later(hours: hours)
        case .purge:
            let now = now
            try await agree(
                "purgeExpired(at: \(now))",
                model: { self.model.purgeExpired(at: now) },
                storage: { try await self.storage.purgeExpired(at: now) }
            )
            // Removals an hour old and more are forgotten.
            let cutoff = now.addingTimeInterval(-60 * 60)
            try await agree(
                "purgeRemovals(before: \(cutoff))",
                model: { self.model.purgeRemovals(before: cutoff) },
                storage: { try await self.storage.purgeRemovals(before: cutoff) }
            )
        case .compareState:
            try await compareState()
        }
    }

    func updateUser(_ index: Int, blocked: Bool) async throws {
        let name = username(index)
        var user =
            model.user(named: name)
            ?? UserRecord(username: name, displayName: "Nobody", passwordHash: "$2b$04$none", createdAt: now)
        user.blocked = blocked
        user.displayName = "User \(index)" + (blocked ? " (blocked)" : "")
        try await agreeOnEffect(
            "updateUser(\(name))",
            model: { self.model.updateUser(user) },
            storage: { try await self.storage.updateUser(user) }
        )
        try await agree(
            "user(named: \(name))",
            model: { self.model.user(named: name) },
            storage: { try await self.storage.user(named: name) }
        )
    }

    /// As the server signs in: the attempts counted (cleared when the password is right),
    /// then the session and perhaps a device cookie.
    func signIn(
        _ user: Int,
        _ device: Int,
        _ app: Int,
        address: Int,
        succeeds: Bool,
        hours: Int,
        cookie: Bool
    ) async throws {
        let name = username(user)
        let keys = [name, "\(name)@192.0.2.\(address)"]
        for key in keys where !attemptKeys.contains(key) { attemptKeys.append(key) }
        let now = now
        let count: @Sendable ([String: SignInAttempts]) -> (SignInAttemptsChange, [String: SignInAttempts]) = {
            current in
            guard !succeeds else { return (SignInAttemptsChange(clear: keys), current) }
            let counted = keys.map { key in
                var attempts = current[key] ?? SignInAttempts(key: key, count: 0, windowStart: now)
                attempts.count += 1
                if attempts.count >= 3 { attempts.blockedUntil = now.addingTimeInterval(15 * 60) }
                return attempts
            }
            return (SignInAttemptsChange(save: counted), current)
        }
        try await agree(
            "updateSignInAttempts(\(keys))",
            model: { self.model.updateSignInAttempts(keys: keys, count) },
            storage: { try await self.storage.updateSignInAttempts(username: name, keys: keys, count) }
        )
        guard succeeds else { return }
        let session = SessionRecord(
            tokenHash: Data(fresh("session").utf8),
            appID: appID(app),
            username: name,
            deviceID: deviceID(device),
            createdAt: now,
            expiresAt: later(hours: hours)
        )
        sessionTokens.append(session.tokenHash)
        try await agreeOnEffect(
            "insertSession",
            model: { try self.model.insertSession(session) },
            storage: { try await self.storage.insertSession(session) }
        )
        try await agree(
            "session(tokenHash:)",
            model: { self.model.session(tokenHash: session.tokenHash) },
            storage: { try await self.storage.session(tokenHash: session.tokenHash) }
        )
        guard cookie else { return }
        let record = DeviceCookieRecord(tokenHash: Data(fresh("cookie").utf8), username: name, createdAt: now)
        cookieTokens.append(record.tokenHash)
        try await agreeOnEffect(
            "insertDeviceCookie",
            model: { try self.model.insertDeviceCookie(record) },
            storage: { try await self.storage.insertDeviceCookie(record) }
        )
    }

    /// As the server registers: the registration there is updated unless it was wiped
    /// or `renew` asks for a new one, which replaces it.
    func register(_ user: Int, _ device: Int, _ app: Int, renew: Bool) async throws {
        let (name, deviceID, appID) = (username(user), deviceID(device), appID(app))
        let existing = try await agree(
            "device(appID: \(appID), username: \(name), deviceID: \(deviceID))",
            model: { self.model.device(appID: appID, username: name, deviceID: deviceID) },
            storage: { try await self.storage.device(appID: appID, username: name, deviceID: deviceID) }
        )
        var record: DeviceRecord
        if let existing = existing ?? nil, !renew, existing.status != .wiped {
            made += 1
            record = existing
            record.deviceName = "Device \(made)"
            record.appVersion = "1.\(made)"
            record.lastContactAt = now
        } else {
            let id = fresh("reg")
            registrations.append((id, appID))
            record = DeviceRecord(
                registrationID: id,
                appID: appID,
                username: name,
                deviceID: deviceID,
                deviceName: "Device",
                platform: "ios",
                appVersion: "1.0",
                statusChangedAt: now,
                recoverySecret: Data(id.utf8),
                registeredAt: now,
                lastContactAt: now,
                changeKey: renew ? Data([4, 1, 2]) : nil
            )
        }
        try await agreeOnEffect(
            "saveDevice(\(record.registrationID))",
            model: { self.model.saveDevice(record) },
            storage: { try await self.storage.saveDevice(record) }
        )
    }

    /// As the admin locks, wipes or unlocks a registration.
    func setStatus(_ index: Int, _ status: DeviceStatus) async throws {
        guard let registration = nth(registrations, index) else { return }
        let found = try await agree(
            "device(appID: \(registration.appID), registrationID: \(registration.id))",
            model: { self.model.device(appID: registration.appID, registrationID: registration.id) },
            storage: { try await self.storage.device(appID: registration.appID, registrationID: registration.id) }
        )
        guard var device = found ?? nil, device.status != status else { return }
        device.status = status
        device.statusChangedAt = now
        if status == .wiped { device.recoverySecret = Data(fresh("secret").utf8) }
        try await agreeOnEffect(
            "saveDevice(\(device.registrationID), \(status))",
            model: { self.model.saveDevice(device) },
            storage: { try await self.storage.saveDevice(device) }
        )
    }

    func upload(_ changes: [StorageOperation.ChangeSpec], limit: Int, carrier: Int?) async throws {
        var batch: [ChangeApplication] = []
        for spec in changes {
            let id: UUID
            if let reused = spec.reusedID, let known = nth(changeIDs, reused) {
                id = known
            } else {
                id = UUID()
                changeIDs.append(id)
            }
            let author = username(spec.author)
            let registration =
                model.device(appID: appID(0), username: author, deviceID: deviceID(spec.device))?.registrationID
                ?? "\(namespace)unregistered\(spec.author)\(spec.device)"
            let change = Change(
                id: id,
                registrationID: registration,
                author: author,
                sequence: spec.sequence,
                entitySet: StorageOperation.ChangeSpec.sets[spec.entitySet],
                entityID: "e\(spec.entity)",
                baseVersion: spec.baseVersion,
                fields: spec.fields,
                madeAt: now
            )
            batch.append(
                ChangeApplication(
                    appID: appID(0),
                    change: change,
                    carrier: carrier.map(username) ?? author,
                    receivedAt: now
                )
            )
        }
        try await agree(
            "applyChanges(limit: \(limit))",
            model: { self.model.applyChanges(batch, limit: limit, decide: Self.decide) },
            storage: { try await self.storage.applyChanges(batch, limit: limit, decide: Self.decide) }
        )
    }

    /// One upload of one more new entity than an author may create in the bulk set.
    func flood(_ author: Int) async throws {
        floods += 1
        let (name, registration, flood) = (username(author), "\(namespace)flood\(floods)", floods + 100)
        let batch = (1...EntityLimits.creationsPerAuthor + 1).map { index in
            ChangeApplication(
                appID: appID(0),
                change: Change(
                    registrationID: registration,
                    author: name,
                    sequence: Int64(index),
                    entitySet: "bulk",
                    entityID: "f\(flood)n\(index + 1000)",
                    baseVersion: nil,
                    fields: ["status": "open"],
                    madeAt: now
                ),
                carrier: name,
                receivedAt: now
            )
        }
        try await agree(
            "applyChanges(\(batch.count) creations by \(name))",
            model: { self.model.applyChanges(batch, limit: 1000, decide: Self.decide) },
            storage: { try await self.storage.applyChanges(batch, limit: 1000, decide: Self.decide) }
        )
    }

    func issueRefreshToken(
        _ user: Int,
        _ device: Int,
        _ family: Int?,
        _ reusedToken: Int?,
        session: Int,
        hours: Int
    ) async throws {
        let familyID: String
        if let family, let known = nth(families, family) {
            familyID = known
        } else {
            familyID = fresh("family")
            families.append(familyID)
        }
        let tokenHash: Data
        if let reusedToken, let known = nth(refreshTokens, reusedToken) {
            tokenHash = known
        } else {
            tokenHash = Data(fresh("refresh").utf8)
            refreshTokens.append(tokenHash)
        }
        let token = RefreshTokenRecord(
            tokenHash: tokenHash,
            familyID: familyID,
            appID: appID(0),
            username: username(user),
            deviceID: deviceID(device),
            sessionHash: nth(sessionTokens, session) ?? Data("\(namespace)nosession".utf8),
            createdAt: now,
            expiresAt: later(hours: hours)
        )
        try await agree(
            "insertRefreshToken(family \(familyID))",
            model: { try self.model.insertRefreshToken(token) },
            storage: { try await self.storage.insertRefreshToken(token) }
        )
        try await agree(
            "refreshToken(tokenHash:)",
            model: { self.model.refreshToken(tokenHash: tokenHash) },
            storage: { try await self.storage.refreshToken(tokenHash: tokenHash) }
        )
    }
}

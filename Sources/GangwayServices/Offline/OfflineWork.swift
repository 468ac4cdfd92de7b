import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayScreens

/// The signed-in user's offline work on a device: edits recorded at once, with or without
/// a network, shown over the app's data until the server answers, then sent by whoever's
/// session reaches the server next, and answered to their author alone.
///
/// ```swift
/// let work = OfflineWork(services: services, outbox: try Outbox(directory: deviceDirectory, deviceKeys: deviceKeys))
/// try work.edit("checks", entityID: "F-GKXA-fuel", fields: ["status": "done"], in: context)
/// let shown = try work.view(reading.entities, of: "checks", in: context)   // pending marked
/// let report = try await work.sync(in: context) { done, total in print("\(done)/\(total)") }
/// ```
///
/// Two copies of each change exist on the device. The outbox (one per device) holds it
/// signed by its author and sealed to the server, so any user's session can carry it and
/// none can read it; the author's own secure store holds a readable copy
/// (``OwnChange``), for their home screen and for the server's answer when it comes. The
/// outbox copy is recorded first: a kill between the two loses only the readable copy,
/// and the change still reaches the server.
public struct OfflineWork: Sendable {
    public let services: MobileServices
    /// The device's outbox, shared by its users.
    public let outbox: Outbox
    /// The device's copy of the app's data, shared by its users; `nil` keeps a copy per
    /// user (see ``AppDataReader``).
    public let shared: SharedAppData?
    /// The most changes one upload carries (1 to ``EntityLimits/changesPerUpload``):
    /// smaller batches give a slow or unsteady network shorter requests to lose.
    public let uploadBatchSize: Int

    public init(
        services: MobileServices,
        outbox: Outbox,
        shared: SharedAppData? = nil,
        uploadBatchSize: Int = EntityLimits.changesPerUpload
    ) {
        self.services = services
        self.outbox = outbox
        self.shared = shared
        self.uploadBatchSize = min(max(1, uploadBatchSize), EntityLimits.changesPerUpload)
    }

    /// The reader of the app's data this work is shown over.
    public var reader: AppDataReader { AppDataReader(services: services, shared: shared) }

    /// Where the user's own changes to one entity are kept in their store: one entry per
    /// entity, so an edit reads and writes only its entity's changes, however many wait.
    static func ownKey(_ entitySet: String, _ entityID: String) -> String {
        ownPrefix + entitySet + "/" + entityID
    }

    static let ownPrefix = "gangway.offline.own/"
    /// Where earlier versions kept all of them, in one entry.
    static let legacyOwnKey = "gangway.offline.own"

    // MARK: The user's changes

    /// The user's changes that are pending, or archived (a conflict, a rejection), oldest
    /// first.
    public func own(in context: FlowContext) throws -> [OwnChange] {
        try moveLegacyChanges(in: context)
        var all: [(change: OwnChange, key: String, index: Int)] = []
        for key in try context.credentials.keys() where key.hasPrefix(Self.ownPrefix) {
            for (index, change) in try ownChanges(forKey: key, in: context).enumerated() {
                all.append((change, key, index))
            }
        }
        // In the order they were made: by sequence, and those of an earlier version by time.
        all.sort {
            ($0.change.sequence ?? 0, $0.change.madeAt, $0.key, $0.index)
                < ($1.change.sequence ?? 0, $1.change.madeAt, $1.key, $1.index)
        }
        return all.map(\.change)
    }

    /// The user's changes to one entity, oldest first.
    private func own(_ entitySet: String, _ entityID: String, in context: FlowContext) throws -> [OwnChange] {
        try moveLegacyChanges(in: context)
        return try ownChanges(forKey: Self.ownKey(entitySet, entityID), in: context)
    }

    private func ownChanges(forKey key: String, in context: FlowContext) throws -> [OwnChange] {
        guard let data = try context.credentials.data(forKey: key) else { return [] }
        do {
            return try Self.decoder.decode([OwnChange].self, from: data)
        } catch {
            throw OfflineWorkError(.unreadable, StringTable.text("offline.unreadable"))
        }
    }

    /// Keeps the user's changes to one entity (all of them), or forgets the entity when
    /// none is left.
    private func keep(_ changes: [OwnChange], of entitySet: String, _ entityID: String, in context: FlowContext) throws
    {
        let key = Self.ownKey(entitySet, entityID)
        if changes.isEmpty {
            _ = try context.credentials.removeValue(forKey: key)
        } else {
            try context.credentials.put(Self.encoder.encode(changes), forKey: key)
        }
    }

    /// Keeps `changes` entity by entity, for the entities in `touched`.
    private func keep(_ changes: [OwnChange], touching touched: Set<EntityKey>, in context: FlowContext) throws {
        let grouped = Dictionary(grouping: changes) { EntityKey(entitySet: $0.entitySet, entityID: $0.entityID) }
        for entity in touched {
            try keep(grouped[entity] ?? [], of: entity.entitySet, entity.entityID, in: context)
        }
    }

    /// Splits the one entry of an earlier version into an entry per entity.
    private func moveLegacyChanges(in context: FlowContext) throws {
        guard let data = try context.credentials.data(forKey: Self.legacyOwnKey) else { return }
        let changes: [OwnChange]
        do {
            changes = try Self.decoder.decode([OwnChange].self, from: data)
        } catch {
            throw OfflineWorkError(.unreadable, StringTable.text("offline.unreadable"))
        }
        let entities = Set(changes.map { EntityKey(entitySet: $0.entitySet, entityID: $0.entityID) })
        try keep(changes, touching: entities, in: context)
        _ = try context.credentials.removeValue(forKey: Self.legacyOwnKey)
    }

    private struct EntityKey: Hashable {
        var entitySet: String
        var entityID: String
    }

    /// Whether ``edit(_:entityID:fields:in:)`` with these values would create the entity
    /// (the device has no copy of it from the server, and this user did not create it
    /// here) and be recorded. An app asks the person first: a mistyped ID would otherwise
    /// become a new entity for everyone.
    ///
    /// - Throws: What `edit` would throw for these values, before anything is recorded.
    public func wouldCreate(
        _ entitySet: String,
        entityID: String,
        fields: [String: String],
        in context: FlowContext
    ) throws -> Bool {
        try plan(entitySet, entityID: entityID, fields: fields, in: context).creates
    }

    /// What an edit would record, checked by every rule but the outbox's.
    private struct Plan {
        let authoring: Authoring
        let own: [OwnChange]
        let creates: Bool
        let baseVersion: Int64?
        let now: Date
    }

    private func plan(
        _ entitySet: String,
        entityID: String,
        fields: [String: String],
        in context: FlowContext
    ) throws -> Plan {
        let authoring = try authoring(in: context)
        let now = services.now()
        func draft(baseVersion: Int64?) -> Change {
            Change(
                registrationID: authoring.author.registrationID,
                author: authoring.author.name,
                sequence: 1,
                entitySet: entitySet,
                entityID: entityID,
                baseVersion: baseVersion,
                fields: fields,
                madeAt: now
            )
        }
        // A malformed ID or field is said as such, before whether the entity exists.
        try EntitySetRules.checkShape(draft(baseVersion: nil))
        guard let rules = authoring.settings.entitySetRules?[entitySet] else {
            throw ChangeRejection(.entitySetNotWritable, "Devices may not change \(entitySet).")
        }
        let own = try own(entitySet, entityID, in: context)
        let kept = try reader.keptEntity(entityID, of: entitySet, in: context)
        let creates = kept == nil && !own.contains { $0.creates }
        if creates, !rules.allowsCreation {
            throw ChangeRejection(
                .entityNotFound,
                "There is no \(entityID) in \(entitySet) on this device, and devices may not create one."
            )
        }
        // Each of the user's own changes still pending will raise the entity's version by
        // one before this one arrives: based on them, a field edited twice offline is not
        // a conflict with the user's own earlier edit. A change to an entity this user
        // created offline is based on the creation.
        let before = own.filter { $0.state == .pending && !$0.creates }.count
        let baseVersion: Int64? = creates ? nil : (kept?.version ?? 1) + Int64(before)
        try rules.check(draft(baseVersion: baseVersion))
        if let schema = authoring.settings.entitySchemas?[entitySet] {
            // A creation is the whole entity; an edit, the fields it sets over the rest.
            do throws(EntitySchemaError) {
                if creates {
                    try schema.check(fields, in: entitySet)
                } else {
                    try schema.checkValues(fields, in: entitySet)
                }
            } catch {
                throw ChangeRejection(error)
            }
        }
        return Plan(authoring: authoring, own: own, creates: creates, baseVersion: baseVersion, now: now)
    }

    /// Records an edit of the signed-in user's: `fields` set on `entityID` of
    /// `entitySet`, or the entity created when the device has none by that ID and the set
    /// allows it. Editing an entity again lets its changes held behind a rejected one go.
    ///
    /// - Throws: `ChangeRejection` (the same the server would give) when the app's rules
    ///   refuse the change; ``OfflineWorkError/notReady`` before the device first reached
    ///   the server for this user; `OutboxError` when the outbox cannot be written.
    @discardableResult
    public func edit(
        _ entitySet: String,
        entityID: String,
        fields: [String: String],
        in context: FlowContext
    ) throws -> OwnChange {
        let plan = try plan(entitySet, entityID: entityID, fields: fields, in: context)
        let (authoring, now, creates, baseVersion) = (plan.authoring, plan.now, plan.creates, plan.baseVersion)
        var own = plan.own
        let signed = try outbox.record(
            by: authoring.author,
            entitySet: entitySet,
            entityID: entityID,
            baseVersion: baseVersion,
            fields: fields,
            madeAt: now,
            sealingTo: authoring.server
        )
        // Editing again answers what the server said about earlier changes to the entity.
        let archived = own.filter { $0.state != .pending }
        if archived.contains(where: { $0.state == .rejected }) {
            try outbox.release(
                registrationID: authoring.author.registrationID,
                entitySet: entitySet,
                entityID: entityID
            )
        }
        own.removeAll { archived.contains($0) }
        let change = OwnChange(
            id: signed.change.id,
            entitySet: entitySet,
            entityID: entityID,
            fields: fields,
            creates: creates,
            madeAt: now,
            sequence: signed.change.sequence
        )
        own.append(change)
        try keep(own, of: entitySet, entityID, in: context)
        return change
    }

    /// One entity as the user sees it: the server's copy with their pending changes over it.
    public struct ShownEntity: Sendable, Hashable, Identifiable {
        public var entity: AppEntity
        /// Whether a change of the user's to it is waiting for the server.
        public var pending: Bool
        /// Whether a change of the user's to it ended in a conflict or a rejection.
        public var needsAttention: Bool

        public var id: String { entity.id }

        public init(entity: AppEntity, pending: Bool = false, needsAttention: Bool = false) {
            self.entity = entity
            self.pending = pending
            self.needsAttention = needsAttention
        }
    }

    /// Fills `store` with `entitySet` as the signed-in user sees it: the copy kept on the
    /// device with their pending changes over it (``view(_:of:in:)``), in a table built
    /// from the set's schema as the last settings exchange gave it. No server contact.
    /// - Returns: `false` when the device keeps no copy of the set for the user.
    @discardableResult
    public func fill(_ store: LocalEntityStore, with entitySet: String, in context: FlowContext) throws -> Bool {
        guard let kept = try reader.kept(entitySet, in: context) else { return false }
        let schema = try context.credentials.serverSettings()?.entitySchemas?[entitySet]
        try store.replace(entitySet, schema: schema, with: try view(kept.entities, of: entitySet, in: context))
        store.mark(entitySet, filledFor: context.onboardingID)
        return true
    }

    /// Brings `store` up to date with what `sync` changed in the kept copy, and with the
    /// user's own work since the store was last brought up to date (their edits, and the
    /// server's answers to them): the entities either touched, as the user sees them, in
    /// one transaction, so the cost is the change's and a query observed answers once. A
    /// sync that replaced the copy, a schema that changed, or a store that does not hold
    /// the set for this user yet (filled for another, or never), fills the set's table
    /// again (``fill(_:with:in:)``). No server contact.
    public func update(_ store: LocalEntityStore, with sync: AppDataSync, in context: FlowContext) throws {
        let entitySet = sync.entitySet
        let schema = try context.credentials.serverSettings()?.entitySchemas?[entitySet]
        let own = try own(in: context).filter { $0.entitySet == entitySet }
        if sync.replaced {
            // The sync brought the whole copy: it fills the table, without reading it back.
            try store.replace(entitySet, schema: schema, with: view(sync.upserted, own: own, in: context))
            store.mark(entitySet, filledFor: context.onboardingID)
            return
        }
        // Only a table this user's view filled is brought up to date: another user's part
        // may hold what this one may not read.
        guard store.holds(entitySet, schema: schema), store.isFilled(entitySet, for: context.onboardingID) else {
            try fill(store, with: entitySet, in: context)
            return
        }
        // What the sync touched; what the user's own changes touch; what the store shows
        // as theirs, which an answer may have settled since.
        var touched = Set(sync.upserted.map(\.id)).union(sync.removedIDs).union(own.map(\.entityID))
        touched.formUnion(try store.markedIDs(entitySet))
        var entities = sync.upserted
        let removed = Set(sync.removedIDs)
        for id in touched.subtracting(entities.map(\.id)) where !removed.contains(id) {
            if let entity = try reader.keptEntity(id, of: entitySet, in: context) { entities.append(entity) }
        }
        // A removed entity the user changed offline stays shown as theirs, as ``view`` shows it.
        let shown = view(entities, own: own, in: context)
        let kept = Set(shown.map(\.id))
        try store.apply(
            entitySet,
            schema: schema,
            upserting: shown,
            removing: touched.filter { !kept.contains($0) }.sorted()
        )
    }

    /// `entities` of `entitySet` (the kept copy, shared by the device's users) with the
    /// signed-in user's pending changes over them, and the entities they created offline
    /// after them.
    public func view(_ entities: [AppEntity], of entitySet: String, in context: FlowContext) throws -> [ShownEntity] {
        view(entities, own: try own(in: context).filter { $0.entitySet == entitySet }, in: context)
    }

    /// `entities` with `own` changes over them, and the entities those create after them.
    private func view(_ entities: [AppEntity], own: [OwnChange], in context: FlowContext) -> [ShownEntity] {
        var shown = entities.map { ShownEntity(entity: $0, pending: false, needsAttention: false) }
        var positions = Dictionary(shown.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        for change in own {
            if let index = positions[change.entityID] {
                if change.state == .pending {
                    shown[index].entity.fields.merge(change.fields) { $1 }
                    shown[index].pending = true
                } else {
                    shown[index].needsAttention = true
                }
            } else if change.state == .pending {
                let entity = AppEntity(
                    id: change.entityID,
                    fields: change.fields,
                    version: 0,
                    updatedAt: change.madeAt,
                    updatedBy: context.credentials.serverUserID ?? ""
                )
                positions[change.entityID] = shown.count
                shown.append(ShownEntity(entity: entity, pending: true, needsAttention: false))
            }
        }
        return shown
    }

    // MARK: Sending and answers

    /// What one ``sync(in:progress:)`` did.
    public struct SyncReport: Sendable, Hashable {
        /// What the server answered to the changes sent.
        public var sent: OutboxSender.Report
        /// The user's changes the server's answers archived (conflicts and rejections).
        public var archived: [OwnChange]
    }

    /// Takes in the answers already there, sends the pending changes with this user's
    /// session (every user's when the app allows carrying the previous users' changes,
    /// else this user's only), then takes in the new answers.
    ///
    /// - Throws: ``ServiceError`` when the server could not be reached (after the
    ///   sender's retries) or refused the session; nothing is lost, and the changes go at
    ///   the next server contact.
    public func sync(
        in context: FlowContext,
        progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> SyncReport {
        let authoring = try authoring(in: context)
        var archived = try collect(in: context)
        let registrations: Set<String>? =
            authoring.settings.allowsUploadOfPreviousUserChanges ? nil : [authoring.author.registrationID]
        // A session the server ended is renewed, or the person signs in again; what was
        // answered before stays answered in the outbox.
        let sent = try await services.withSession(context, asking: true) { client, configuration, token in
            try await OutboxSender(client: client, appID: configuration.appID, outbox: outbox)
                .sendAll(token: token, registrations: registrations, batchSize: uploadBatchSize, progress: progress)
        }
        archived += try collect(in: context)
        return SyncReport(sent: sent, archived: archived)
    }

    /// How many changes wait in the outbox: this user's, and other users' of the device.
    public func waiting(in context: FlowContext) throws -> (own: Int, others: Int) {
        let all = try outbox.readyCount()
        guard let registrationID = try context.credentials.registrationID() else { return (0, all) }
        let own = try outbox.count(registrationID: registrationID)
        return (own, max(0, all - (try outbox.readyCount(registrations: [registrationID]))))
    }

    /// Takes the server's answers to the user's changes out of the outbox into their
    /// store: applied ones are dropped, conflicts and rejections archived.
    ///
    /// - Returns: The changes archived now.
    @discardableResult
    public func collect(in context: FlowContext) throws -> [OwnChange] {
        let authoring = try authoring(in: context)
        let answers = try outbox.answers(
            registrationID: authoring.author.registrationID,
            openingWith: authoring.keys.answers
        )
        var archived: [OwnChange] = []
        if !answers.isEmpty {
            archived = try take(answers, in: context)
        }
        try refile(authoring.author.registrationID, in: context)
        return archived
    }

    /// Files the user's changes the outbox holds unfiled (its tag key was lost) under
    /// their entities again, from the user's own record, and holds again those behind a
    /// refusal the user has not answered.
    private func refile(_ registrationID: String, in context: FlowContext) throws {
        guard try outbox.needsRefiling(registrationID: registrationID) else { return }
        let own = try own(in: context)
        var changes: [UUID: (entitySet: String, entityID: String)] = [:]
        for change in own where change.state == .pending {
            changes[change.id] = (change.entitySet, change.entityID)
        }
        let heldBack = Set(
            own.filter { $0.state == .rejected }.map { EntityKey(entitySet: $0.entitySet, entityID: $0.entityID) }
        )
        try outbox.refile(
            registrationID: registrationID,
            changes: changes,
            heldBack: heldBack.map { ($0.entitySet, $0.entityID) }
        )
    }

    /// Takes `answers` into the user's store; returns the changes they archive.
    private func take(_ answers: [UUID: ChangeAnswer], in context: FlowContext) throws -> [OwnChange] {
        var archived: [OwnChange] = []
        var touched: Set<EntityKey> = []
        let own = try own(in: context).compactMap { change -> OwnChange? in
            guard let answer = answers[change.id] else { return change }
            touched.insert(EntityKey(entitySet: change.entitySet, entityID: change.entityID))
            var ended = change
            ended.serverEntity = answer.entity
            switch answer.outcome {
            case .applied, .duplicate:
                return nil
            case .held:
                // Never kept as an answer (the outbox keeps the change); still pending.
                return change
            case .conflict:
                ended.state = .conflict
                ended.conflicts = answer.result.conflicts
            case .rejected:
                ended.state = .rejected
                ended.rejection = answer.result.rejection
            }
            archived.append(ended)
            return ended
        }
        try keep(own, touching: touched, in: context)
        try outbox.forgetAnswers(Array(answers.keys))
        return archived
    }

    /// Drops one of the user's changes: a pending one never leaves the device; an
    /// archived one is forgotten, and the changes held behind a rejected one go.
    public func discard(_ id: UUID, in context: FlowContext) throws {
        var own = try own(in: context)
        guard let index = own.firstIndex(where: { $0.id == id }) else {
            throw OfflineWorkError(.noSuchChange, StringTable.text("offline.noSuchChange"))
        }
        let change = own.remove(at: index)
        switch change.state {
        case .pending:
            try outbox.discard([id])
        case .rejected:
            if let registrationID = try context.credentials.registrationID() {
                try outbox.release(
                    registrationID: registrationID,
                    entitySet: change.entitySet,
                    entityID: change.entityID
                )
            }
        case .conflict:
            break
        }
        try keep(
            own.filter { $0.entitySet == change.entitySet && $0.entityID == change.entityID },
            of: change.entitySet,
            change.entityID,
            in: context
        )
    }

    /// Whether the user can work offline on this device: it has their registration, the
    /// app's rules and the server's sealing key from a server contact since this version.
    public func isReady(in context: FlowContext) throws -> Bool {
        do {
            _ = try authoring(in: context)
            return true
        } catch let error as OfflineWorkError where error == .notReady {
            return false
        }
    }

    /// Whether the user can change `entitySet` on this device: they can work offline, and
    /// the app lets devices write a field of the set or create in it.
    public func canEdit(_ entitySet: String, in context: FlowContext) throws -> Bool {
        guard try isReady(in: context), let rules = try context.credentials.serverSettings()?.entitySetRules?[entitySet]
        else { return false }
        return !rules.writableFields.isEmpty || rules.allowsCreation
    }

    // MARK: Internals

    private struct Authoring {
        var author: OutboxAuthor
        var keys: OfflineKeys
        var settings: ServerSettings
        var server: SealingPublicKey
    }

    private func authoring(in context: FlowContext) throws -> Authoring {
        let credentials = context.credentials
        guard let settings = try credentials.serverSettings(),
            let sealing = settings.changeSealingKey,
            let server = try? SealingPublicKey(x963Representation: sealing),
            let user = try credentials.serverUser(),
            let registrationID = try credentials.registrationID(),
            let keys = try credentials.offlineKeys()
        else {
            throw OfflineWorkError(.notReady, StringTable.text("offline.notReady"))
        }
        return Authoring(
            author: keys.author(name: user.id, registrationID: registrationID),
            keys: keys,
            settings: settings,
            server: server
        )
    }

    // Dates as Swift keeps them, so a change reads back equal to the one recorded.
    private static let encoder = JSONEncoder()
    private static let decoder = JSONDecoder()
}

extension CredentialStore {
    fileprivate var serverUserID: String? { (try? serverUser())?.id }
}

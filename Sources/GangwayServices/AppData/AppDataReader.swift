import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayStore
import Logging

/// Reads the app's data for the signed-in user: an entity set the server serves
/// read-only to devices, synced from the last copy kept (only what changed since comes
/// over the network), and kept so that it is there offline: in the
/// device's ``SharedAppData`` when the app gives one (one copy for all the device's
/// users), otherwise, or when the set gives each user their own part (a subset), in the
/// user's secure store, for that user only.
///
/// ```swift
/// let reader = AppDataReader(services: services, shared: shared)
/// let reading = try await reader.read("checks", in: context)
/// for check in reading.entities { print(check["aircraft"] ?? "?", check["status"] ?? "?") }
/// if let failure = reading.failure { print("Kept copy: \(failure.summary)") }
///
/// // Or only what changed, for a screen or a LocalEntityStore kept current:
/// let synced = try await reader.sync("checks", in: context, waitingUpTo: 15)
/// print(synced.upserted.count, synced.removedIDs.count)
/// ```
///
/// The copy is kept as records of the store (``GangwayStore/SecureStore/records(in:)``),
/// one per entity, each sealed: a sync writes the entities it brings and removes those
/// it says are gone, in one transaction with the copy's cursor, so its cost is the
/// change's, not the set's, and the copy is never half of a sync.
///
/// A failed call is not thrown: the reading carries it, with the kept copy. Only a store
/// that cannot be read or written, or a context without a configuration, throws.
public struct AppDataReader: Sendable {
    public let services: MobileServices
    /// The device's copy, shared by its users; `nil` keeps a copy per user.
    public let shared: SharedAppData?

    public init(services: MobileServices, shared: SharedAppData? = nil) {
        self.services = services
        self.shared = shared
    }

    /// Syncs `entitySet` (``sync(_:in:waitingUpTo:)``), then reads the whole kept copy:
    /// a copy that does not read back is built again from the server, when it answered.
    ///
    /// With `wait`, a read that finds the kept copy current is a live update: the server
    /// holds its answer until the set changes (a change the user sees), or `wait` seconds
    /// pass. An app that reads again as each answer comes hears of a change within a
    /// second of it, with one request open and none sent in between.
    /// - Parameters:
    ///   - context: The open session's context (its credentials are the user's secure
    ///     store).
    ///   - wait: How many seconds the server may hold the answer for a change
    ///     (``GangwayProtocol/APILimits/syncWait``); `nil`: it answers at once.
    public func read(
        _ entitySet: String,
        in context: FlowContext,
        waitingUpTo wait: Int? = nil
    ) async throws -> AppDataReading {
        var synced = try await sync(entitySet, in: context, waitingUpTo: wait)
        let kept: AppDataReading?
        do {
            kept = try self.kept(entitySet, in: context)
        } catch let error as SecureStoreError where error == .integrityFailure && synced.isFresh {
            // A record that does not read back: the copy is built again from the server.
            try forget(entitySet, in: context)
            synced = try await sync(entitySet, in: context)
            kept = try self.kept(entitySet, in: context)
        }
        return AppDataReading(
            entitySet: entitySet,
            entities: kept?.entities ?? [],
            fetchedAt: synced.isFresh ? synced.fetchedAt : kept?.fetchedAt,
            failure: synced.failure
        )
    }

    /// Asks the server for what changed in `entitySet` since the kept copy's last sync,
    /// keeps it, and returns it: the entities written, the IDs removed. The first sync,
    /// or one whose copy the server no longer serves a delta to, brings the whole set
    /// (``AppDataSync/replaced``). A session the server ended is renewed (see
    /// ``MobileServices/withSession(_:asking:_:)``), asking the person to sign in again
    /// when it must; a sync that does not reach the server changes nothing and says why.
    /// - Parameters:
    ///   - context: The open session's context (its credentials are the user's secure
    ///     store).
    ///   - wait: How many seconds the server may hold the answer for a change, when the
    ///     copy is current (``GangwayProtocol/APILimits/syncWait``); `nil`: it answers at
    ///     once.
    /// - Throws: ``GangwayStore/SecureStoreError`` when the copy cannot be read or written
    ///   (``GangwayStore/SecureStoreError/storeNotFound`` before the user has a secure
    ///   store).
    public func sync(
        _ entitySet: String,
        in context: FlowContext,
        waitingUpTo wait: Int? = nil
    ) async throws -> AppDataSync {
        _ = try services.client(context)
        let copy: Copy?
        do {
            copy = try self.copy(of: entitySet, in: context)
        } catch let error as SecureStoreError where error == .integrityFailure {
            // Where the copy stands cannot be read (written by another version, say):
            // this sync takes the set from the start and replaces the copy.
            services.logger.warning("kept app data unreadable, read again", metadata: ["entitySet": "\(entitySet)"])
            copy = nil
        }
        do {
            let changes = try await services.withSession(context, asking: true) { client, configuration, token in
                try await Self.changes(
                    entitySet,
                    since: copy?.state.cursor,
                    waitingUpTo: wait,
                    appID: configuration.appID,
                    client: client,
                    token: token
                )
            }
            return try keep(changes, of: entitySet, over: copy, in: context)
        } catch let error as ServiceError {
            services.logger.info(
                "app data not read",
                metadata: ["entitySet": "\(entitySet)", "error": "\(error)"]
            )
            return unchanged(entitySet, copy, failure: error)
        } catch let error as ServiceFlowError where error == .cancelled {
            // The person did not sign in again: the kept copy, saying why.
            return unchanged(entitySet, copy, failure: .sessionExpired)
        }
    }

    /// The copy kept for `entitySet`, without asking the server.
    /// - Throws: ``GangwayStore/SecureStoreError/integrityFailure`` for a copy that does
    ///   not read back (``read(_:in:waitingUpTo:)`` then builds it again from the server).
    public func kept(_ entitySet: String, in context: FlowContext) throws -> AppDataReading? {
        guard let copy = try copy(of: entitySet, in: context) else { return nil }
        return AppDataReading(
            entitySet: entitySet,
            entities: try copy.entities().sorted { $0.id < $1.id },
            fetchedAt: copy.state.fetchedAt,
            failure: nil
        )
    }

    /// The kept copy of one entity of `entitySet`, without asking the server or reading
    /// the rest.
    public func keptEntity(_ entityID: String, of entitySet: String, in context: FlowContext) throws -> AppEntity? {
        guard let copy = try copy(of: entitySet, in: context), !entityID.isEmpty,
            let record = try copy.store.record(entityID, in: Self.collection(entitySet))
        else { return nil }
        return try Self.entity(entityID, record)
    }

    // MARK: The server's changes

    /// What one sync brings: every page from the copy's cursor, taken together.
    private struct Changes {
        /// Whether the pages are the whole set (no cursor, or the server refused it).
        var fromStart: Bool
        var written: [String: AppEntity] = [:]
        var removed: Set<String> = []
        var cursor = ""
        var isPart = false
    }

    /// The pages of one sync from `cursor`: from the start when there is none, or the
    /// server no longer serves it. With `wait`, a copy that is current waits for the
    /// set's next change.
    private static func changes(
        _ entitySet: String,
        since cursor: String?,
        waitingUpTo wait: Int?,
        appID: String,
        client: MobileServicesClient,
        token: SessionToken
    ) async throws(ServiceError) -> Changes {
        var cursor = cursor
        var changes = Changes(fromStart: cursor == nil)
        while true {
            let page: AppDataChanges
            do {
                page = try await client.appDataChanges(
                    appID: appID,
                    entitySet: entitySet,
                    cursor: cursor,
                    // The largest pages: a first sync takes fewest round trips, and a
                    // catch-up's page is as small as its change.
                    limit: APILimits.syncPage.upperBound,
                    waitingUpTo: cursor == nil ? nil : wait,
                    token: token
                )
            } catch  where cursor != nil && error.serverCode == ErrorCode.cursorExpired.rawValue {
                // Removals since the copy are forgotten: the set again, from the start.
                (cursor, changes) = (nil, Changes(fromStart: true))
                continue
            }
            for entity in page.entities {
                changes.written[entity.id] = entity
                changes.removed.remove(entity.id)
            }
            for id in page.removedIDs {
                changes.written[id] = nil
                changes.removed.insert(id)
            }
            cursor = page.cursor
            if !page.more {
                (changes.cursor, changes.isPart) = (page.cursor, page.isPart)
                return changes
            }
        }
    }

    // MARK: The kept copy

    /// The kept copy of a set: the store that holds it, and where it stands.
    private struct Copy {
        let store: SecureStore
        let state: KeptState
        let entitySet: String

        func entities() throws -> [AppEntity] {
            try store.records(in: AppDataReader.collection(entitySet)).map {
                try AppDataReader.entity($0.key, $0.value)
            }
        }
    }

    /// Where a copy stands: when it was last synced, and the cursor to sync from.
    /// A copy kept by an earlier version held its entities here too (`entities`): it is
    /// moved into records when it is first read.
    private struct KeptState: Codable {
        var fetchedAt: Date
        /// Where the copy stands in the set's change log; `nil` for a copy kept before
        /// devices synced, which the next read replaces whole.
        var cursor: String?
        var entities: [AppEntity]? = nil
    }

    /// The store entry that says where a set's copy stands.
    static func key(_ entitySet: String) -> String { "gangway.data.\(entitySet)" }

    /// The collection of records that holds a set's copy, an entity each.
    static func collection(_ entitySet: String) -> String { "gangway.data/\(entitySet)" }

    private static func entity(_ id: String, _ record: Data) throws -> AppEntity {
        do {
            return try KeptEntity.decode(id: id, from: record)
        } catch {
            throw SecureStoreError.integrityFailure
        }
    }

    /// The kept copy: the user's own first (their part, where the device's may be older),
    /// else the device's when the set is not each user's own part. A copy an earlier
    /// version kept whole is moved into records first.
    private func copy(of entitySet: String, in context: FlowContext) throws -> Copy? {
        let user = try userStore(context)
        var places = [user]
        if let device = try sharedStore(for: entitySet, part: false, existing: true, in: context) {
            places.append(device)
        }
        for store in places {
            guard let data = try store.data(forKey: Self.key(entitySet)) else { continue }
            guard var state = try? Self.decoder.decode(KeptState.self, from: data) else {
                throw SecureStoreError.integrityFailure
            }
            if let entities = state.entities {
                state.entities = nil
                let moved = try Self.encoder.encode(state)
                try store.write { batch throws(SecureStoreError) in
                    try batch.removeRecords(in: Self.collection(entitySet))
                    for entity in entities {
                        try batch.putRecord(
                            KeptEntity.encode(entity),
                            forKey: entity.id,
                            in: Self.collection(entitySet)
                        )
                    }
                    try batch.put(moved, forKey: Self.key(entitySet))
                }
            }
            return Copy(store: store, state: state, entitySet: entitySet)
        }
        return nil
    }

    /// Keeps what a sync brought where the set's copy belongs now, in one transaction,
    /// and removes a copy from the other place.
    private func keep(
        _ changes: Changes,
        of entitySet: String,
        over copy: Copy?,
        in context: FlowContext
    ) throws -> AppDataSync {
        let user = try userStore(context)
        let store = try sharedStore(for: entitySet, part: changes.isPart, existing: false, in: context) ?? user
        let collection = Self.collection(entitySet)
        var written = changes.written
        var replaced = changes.fromStart
        if let copy, copy.store !== store, !replaced {
            // The copy moves (the set became, or stopped being, each user's own part): its
            // entities come along, with the changes over them.
            for entity in try copy.entities() where written[entity.id] == nil && !changes.removed.contains(entity.id) {
                written[entity.id] = entity
            }
            replaced = true
        }
        let now = services.now()
        let state = try Self.encoder.encode(KeptState(fetchedAt: now, cursor: changes.cursor))
        let removed = replaced ? [] : changes.removed.sorted()
        try store.write { batch throws(SecureStoreError) in
            if replaced { try batch.removeRecords(in: collection) }
            for (id, entity) in written { try batch.putRecord(KeptEntity.encode(entity), forKey: id, in: collection) }
            for id in removed { try batch.removeRecord(forKey: id, in: collection) }
            try batch.put(state, forKey: Self.key(entitySet))
        }
        // The other place keeps no copy: a user's part never stays where the device's
        // next user could read it, nor a device copy of the whole set once it has parts.
        let other: SecureStore? =
            store === user ? try sharedStore(for: entitySet, part: false, existing: true, in: context) : user
        if let other, other !== store, try other.data(forKey: Self.key(entitySet)) != nil {
            try other.write { batch throws(SecureStoreError) in
                try batch.removeRecords(in: collection)
                try batch.removeValue(forKey: Self.key(entitySet))
            }
        }
        return AppDataSync(
            entitySet: entitySet,
            upserted: written.values.sorted { $0.id < $1.id },
            removedIDs: removed,
            replaced: replaced,
            fetchedAt: now,
            failure: nil
        )
    }

    /// Removes the set's copy from the user's store and the device's, so the next sync
    /// takes the set from the start.
    private func forget(_ entitySet: String, in context: FlowContext) throws {
        var places = [try userStore(context)]
        if let device = try sharedStore(for: entitySet, part: false, existing: true, in: context) {
            places.append(device)
        }
        for store in places {
            try store.write { batch throws(SecureStoreError) in
                try batch.removeRecords(in: Self.collection(entitySet))
                try batch.removeValue(forKey: Self.key(entitySet))
            }
        }
    }

    private func unchanged(_ entitySet: String, _ copy: Copy?, failure: ServiceError) -> AppDataSync {
        AppDataSync(
            entitySet: entitySet,
            upserted: [],
            removedIDs: [],
            replaced: false,
            fetchedAt: copy?.state.fetchedAt,
            failure: failure
        )
    }

    /// The user's secure store, where their own copies are kept.
    private func userStore(_ context: FlowContext) throws -> SecureStore {
        guard let store = context.secureStore else { throw SecureStoreError.storeNotFound }
        return store
    }

    /// The device's store for `entitySet`, unless the set is each user's own part: as the
    /// server's answer says (`part`), or the settings the user's session last read. With
    /// `existing`, only a store the device already has: reading makes none.
    private func sharedStore(
        for entitySet: String,
        part: Bool,
        existing: Bool,
        in context: FlowContext
    ) throws -> SecureStore? {
        guard let shared, !part, !existing || shared.exists else { return nil }
        let schema = try context.credentials.serverSettings()?.entitySchemas?[entitySet]
        return schema?.subset == nil ? try shared.store() : nil
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()
}

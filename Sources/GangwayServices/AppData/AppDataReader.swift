import Foundation
import GangwayFlows
import GangwayProtocol
import Logging

/// Reads the app's data for the signed-in user: an entity set the server serves
/// read-only to devices, synced from the last copy kept (only what changed since comes
/// over the network), and kept so that it is there offline: in the
/// device's ``SharedAppData`` when the app gives one (one copy for all the device's
/// users), otherwise, or when the set gives each user their own part (a subset), in the
/// user's secure store, for that user only.
///
/// ```swift
/// let reading = try await AppDataReader(services: services, shared: shared).read("checks", in: context)
/// for check in reading.entities { print(check["aircraft"] ?? "?", check["status"] ?? "?") }
/// if let failure = reading.failure { print("Kept copy: \(failure.summary)") }
/// ```
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

    /// Asks the server for `entitySet`; keeps what it sends, or returns the kept copy. A
    /// session the server ended is renewed (see
    /// ``MobileServices/withSession(_:asking:_:)``), asking the person to sign in again
    /// when it must.
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
        _ = try services.client(context)
        let kept = try keptData(entitySet, in: context).flatMap { try? Self.decoder.decode(Kept.self, from: $0) }
        do {
            let synced = try await services.withSession(context, asking: true) { client, configuration, token in
                try await Self.sync(
                    entitySet,
                    from: kept,
                    waitingUpTo: wait,
                    appID: configuration.appID,
                    client: client,
                    token: token
                )
            }
            let fresh = Kept(entities: synced.entities, fetchedAt: services.now(), cursor: synced.cursor)
            try keep(Self.encoder.encode(fresh), for: entitySet, part: synced.isPart, in: context)
            return AppDataReading(
                entitySet: entitySet,
                entities: fresh.entities,
                fetchedAt: fresh.fetchedAt,
                failure: nil
            )
        } catch let error as ServiceError {
            services.logger.info(
                "app data not read",
                metadata: ["entitySet": "\(entitySet)", "error": "\(error)"]
            )
            return reading(entitySet, kept, failure: error)
        } catch let error as ServiceFlowError where error == .cancelled {
            // The person did not sign in again: the kept copy, saying why.
            return reading(entitySet, kept, failure: .sessionExpired)
        }
    }

    /// The kept copy brought up to date: the pages of one sync from its cursor, applied
    /// together; from the start when nothing is kept, the kept copy has no cursor (it was
    /// read whole, before syncs), or the server no longer serves its cursor. With `wait`,
    /// a copy that is current waits for the set's next change.
    private static func sync(
        _ entitySet: String,
        from kept: Kept?,
        waitingUpTo wait: Int?,
        appID: String,
        client: MobileServicesClient,
        token: SessionToken
    ) async throws(ServiceError) -> (entities: [AppEntity], cursor: String, isPart: Bool) {
        var cursor = kept?.cursor
        var entities: [String: AppEntity] = [:]
        if cursor != nil { for entity in kept?.entities ?? [] { entities[entity.id] = entity } }
        while true {
            let page: AppDataChanges
            do {
                page = try await client.appDataChanges(
                    appID: appID,
                    entitySet: entitySet,
                    cursor: cursor,
                    waitingUpTo: cursor == nil ? nil : wait,
                    token: token
                )
            } catch  where cursor != nil && error.serverCode == ErrorCode.cursorExpired.rawValue {
                // Removals since the copy are forgotten: the set again, from the start.
                (cursor, entities) = (nil, [:])
                continue
            }
            for entity in page.entities { entities[entity.id] = entity }
            for id in page.removedIDs { entities[id] = nil }
            cursor = page.cursor
            if !page.more { return (entities.values.sorted { $0.id < $1.id }, page.cursor, page.isPart) }
        }
    }

    /// The copy kept for `entitySet`, without asking the server.
    public func kept(_ entitySet: String, in context: FlowContext) throws -> AppDataReading? {
        guard let data = try keptData(entitySet, in: context) else { return nil }
        let kept = try Self.decoder.decode(Kept.self, from: data)
        return AppDataReading(entitySet: entitySet, entities: kept.entities, fetchedAt: kept.fetchedAt, failure: nil)
    }

    private func reading(_ entitySet: String, _ kept: Kept?, failure: ServiceError) -> AppDataReading {
        AppDataReading(
            entitySet: entitySet,
            entities: kept?.entities ?? [],
            fetchedAt: kept?.fetchedAt,
            failure: failure
        )
    }

    static func key(_ entitySet: String) -> String { "gangway.data.\(entitySet)" }

    /// The kept copy: the device's when there is one (or the user's, kept before the
    /// device had one), else the user's. A set with a subset (``EntitySubset``) is each
    /// user's own part, so it is kept in the user's store only, never the device's: on a
    /// shared device, the next user's session cannot read what only the previous user
    /// receives.
    private func keptData(_ entitySet: String, in context: FlowContext) throws -> Data? {
        let key = Self.key(entitySet)
        // The user's own copy first: it is their part, where the device's may be older.
        if let data = try context.credentials.data(forKey: key) { return data }
        return try sharedStore(for: entitySet, part: false, in: context)?.data(forKey: key)
    }

    /// Keeps a fresh copy where ``keptData(_:in:)`` reads it; a user's own copy gives way
    /// to the device's, and the device's to the user's once the set has a subset.
    private func keep(_ data: Data, for entitySet: String, part: Bool, in context: FlowContext) throws {
        let key = Self.key(entitySet)
        guard let shared = try sharedStore(for: entitySet, part: part, in: context) else {
            try context.credentials.put(data, forKey: key)
            // A copy of the whole set the device kept before the set had a subset goes.
            _ = try shared?.removeValue(forKey: key)
            return
        }
        try shared.put(data, forKey: key)
        _ = try context.credentials.removeValue(forKey: key)
    }

    /// The device's copy, unless the set is each user's own part: as the server's answer
    /// says (`part`), or the settings the user's session last read.
    private func sharedStore(for entitySet: String, part: Bool, in context: FlowContext) throws -> SharedAppData? {
        guard let shared, !part else { return nil }
        let schema = try context.credentials.serverSettings()?.entitySchemas?[entitySet]
        return schema?.subset == nil ? shared : nil
    }

    private struct Kept: Codable {
        var entities: [AppEntity]
        var fetchedAt: Date
        /// Where the copy stands in the set's change log; `nil` for a copy kept before
        /// devices synced, which the next read replaces whole.
        var cursor: String?
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

import GangwayClient
import GangwayProtocol
import OpenAPIRuntime

extension AdminClient {
    /// The app's data sources, by entity set.
    public func dataSources(app id: String) async throws(ServiceError) -> [ManagedDataSource] {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listDataSources(path: .init(appID: id))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// The data source of `entitySet`, where it stands and how its last read went; `nil`
    /// when the set has none.
    public func dataSource(_ entitySet: String, app id: String) async throws(ServiceError) -> ManagedDataSource? {
        let output: Operations.GetDataSource.Output
        do throws(ServiceError) {
            output = try await ServiceCall.run(at: serverURL) {
                try await client.getDataSource(path: .init(appID: id, entitySet: entitySet))
            }
        } catch {
            guard error.serverCode == ErrorCode.dataSourceNotFound.rawValue else { throw error }
            return nil
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Fills `entitySet` from `path` of the destination `destination` (an OData v4
    /// service), keyed by `keyProperty`, read every `everySeconds` (`nil`: on demand only);
    /// with `deliversChanges`, devices' changes to the set go to the service, which
    /// decides them.
    /// - Returns: The source, and whether it is new.
    /// - Throws: ``ServiceError``; ``ServiceError/refused`` with status 400 and the
    ///   server's reason for an unknown destination or a path, key or schedule out of the
    ///   rules.
    @discardableResult
    public func putDataSource(
        _ entitySet: String,
        destination: String,
        path: String,
        keyProperty: String? = nil,
        everySeconds: Int? = nil,
        deliversChanges: Bool = false,
        app id: String
    ) async throws(ServiceError) -> (source: ManagedDataSource, isNew: Bool) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.putDataSource(
                path: .init(appID: id, entitySet: entitySet),
                body: .json(
                    .init(
                        destination: destination,
                        path: path,
                        keyProperty: keyProperty,
                        everySeconds: everySeconds.map(Int64.init),
                        deliversChanges: deliversChanges
                    )
                )
            )
        }
        switch output {
        case .ok(let ok): return (try ServiceCall.decode { try ok.body.json }, false)
        case .created(let created): return (try ServiceCall.decode { try created.body.json }, true)
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Stops filling `entitySet` from its data source; its entities stay.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` when the set has none.
    public func removeDataSource(_ entitySet: String, app id: String) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.removeDataSource(path: .init(appID: id, entitySet: entitySet))
        }
        switch output {
        case .noContent: return
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Asks for a read of `entitySet` from its data source now (a full one when `full`);
    /// the source as it stands once asked.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` when the set has none.
    public func pullDataSource(
        _ entitySet: String,
        full: Bool = false,
        app id: String
    ) async throws(ServiceError) -> ManagedDataSource {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.pullDataSource(path: .init(appID: id, entitySet: entitySet), query: .init(full: full))
        }
        switch output {
        case .accepted(let accepted): return try ServiceCall.decode { try accepted.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }
}

/// A device's change waiting for the company's backend, as the admin API shows it: the
/// API's own type (the names of the fields it sets, never their values).
public typealias ManagedDelivery = Components.Schemas.Delivery

extension AdminClient {
    /// The app's changes waiting for the company's backend, oldest first (`parked`: only
    /// those that failed too often).
    public func deliveries(
        app id: String,
        parked: Bool = false,
        limit: Int? = nil
    ) async throws(ServiceError)
        -> [ManagedDelivery]
    {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.listDeliveries(path: .init(appID: id), query: .init(limit: limit, parked: parked))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Sends a waiting change to the backend again now.
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` when no such change waits.
    @discardableResult
    public func retryDelivery(_ changeID: String, app id: String) async throws(ServiceError) -> ManagedDelivery {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.retryDelivery(path: .init(appID: id, changeID: changeID))
        }
        switch output {
        case .ok(let ok): return try ServiceCall.decode { try ok.body.json }
        default: throw ServiceCall.unexpected(output)
        }
    }

    /// Discards a waiting change: its author's device gets a refusal (`DISCARDED`).
    /// - Throws: ``ServiceError``; ``ServiceError/notFound`` when no such change waits.
    public func discardDelivery(_ changeID: String, app id: String) async throws(ServiceError) {
        let output = try await ServiceCall.run(at: serverURL) {
            try await client.discardDelivery(path: .init(appID: id, changeID: changeID))
        }
        switch output {
        case .noContent: return
        default: throw ServiceCall.unexpected(output)
        }
    }
}

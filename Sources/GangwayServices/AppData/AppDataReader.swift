import Foundation
import GangwayFlows
import Logging

/// Reads the app's data for the signed-in user: an entity set the server serves
/// read-only to devices, with the last copy kept in the user's secure store so that it
/// is there offline, and only for that user.
///
/// ```swift
/// let reading = try await AppDataReader(services: services).read("checks", in: context)
/// for check in reading.entities { print(check["aircraft"] ?? "?", check["status"] ?? "?") }
/// if let failure = reading.failure { print("Kept copy: \(failure.summary)") }
/// ```
///
/// A failed call is not thrown: the reading carries it, with the kept copy. Only a store
/// that cannot be read or written, or a context without a configuration, throws.
public struct AppDataReader: Sendable {
    public let services: MobileServices

    public init(services: MobileServices) {
        self.services = services
    }

    /// Asks the server for `entitySet`; keeps what it sends, or returns the kept copy.
    /// - Parameter context: The open session's context (its credentials are the user's
    ///   secure store).
    public func read(_ entitySet: String, in context: FlowContext) async throws -> AppDataReading {
        let (client, configuration) = try services.client(context)
        let key = Self.key(entitySet)
        let kept = try context.credentials.data(forKey: key).flatMap { try? Self.decoder.decode(Kept.self, from: $0) }
        guard let token = try context.credentials.sessionToken() else {
            return reading(entitySet, kept, failure: .notSignedIn)
        }
        do {
            let entities = try await client.appData(appID: configuration.appID, entitySet: entitySet, token: token)
            let fresh = Kept(entities: entities, fetchedAt: services.now())
            try context.credentials.put(Self.encoder.encode(fresh), forKey: key)
            return AppDataReading(entitySet: entitySet, entities: entities, fetchedAt: fresh.fetchedAt, failure: nil)
        } catch let error as ServiceError {
            services.logger.info(
                "app data not read",
                metadata: ["entitySet": "\(entitySet)", "error": "\(error)"]
            )
            return reading(entitySet, kept, failure: error)
        }
    }

    /// The copy kept for `entitySet`, without asking the server.
    public func kept(_ entitySet: String, in context: FlowContext) throws -> AppDataReading? {
        guard let data = try context.credentials.data(forKey: Self.key(entitySet)) else { return nil }
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

    private struct Kept: Codable {
        var entities: [AppEntity]
        var fetchedAt: Date
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

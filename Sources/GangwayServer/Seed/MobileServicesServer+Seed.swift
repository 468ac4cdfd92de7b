import Foundation
import GangwayPolicy
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging

extension MobileServicesServer {
    /// Creates the seed's apps (each with its entity sets' schemas), then its users, then its app data, through the admin
    /// API's own handlers: the same checks, password hashing and storage as
    /// `POST /admin/...`, without HTTP and without the admin token.
    ///
    /// Works whether or not the server listens. Stops at the first item the API refuses
    /// (what was created before it stays) and throws a ``SeedError`` naming that item.
    public func seed(_ seed: ServerSeed) async throws(SeedError) {
        guard !seed.isEmpty else { return }
        do {
            // A pool of its own when the storage needs one: the server may not be serving.
            try await storage.withConnections { try await apply(seed) }
        } catch {
            throw error as? SeedError
                ?? SeedError(
                    APIError(.internalServerError, .seedFailed, "\(type(of: error)) was thrown."),
                    item: "the seed"
                )
        }
    }

    private func apply(_ seed: ServerSeed) async throws(SeedError) {
        // A one-time admin token, known only to this call, stands in for the admin's.
        let token = BearerToken.make()
        let publicURL = PublicURL(configuration.initialPublicURL)
        // Each item is not news: one line says what was seeded (a seed of 20,000 checks
        // would otherwise log 20,000 lines); warnings and errors still show.
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)
        let api = api(publicURL: publicURL, adminToken: .hash(BearerToken.hash(token)), logger: quiet)
        let request = RequestInfo(requestID: "seed", peer: nil, bearerToken: token)
        for app in seed.apps {
            try await Self.apply(request, item: "app \(app.id)") {
                _ = try await api.createApp(
                    body: .json(
                        .init(
                            appID: app.id,
                            name: app.name,
                            emailDomains: app.emailDomains,
                            minimumVersion: app.minimumVersion,
                            settings: app.settings
                        )
                    )
                )
            }
            for (entitySet, fields) in app.schemas.sorted(by: { $0.key < $1.key }) {
                try await Self.apply(request, item: "schema of \(app.id)/\(entitySet)") {
                    _ = try await api.putEntitySchema(
                        path: .init(appID: app.id, entitySet: entitySet),
                        body: .json(.init(fields, subset: app.subsets[entitySet]))
                    )
                }
            }
        }
        for user in seed.users {
            try await Self.apply(request, item: "user \(user.username)") {
                _ = try await api.createUser(
                    body: .json(
                        .init(username: user.username, password: user.password.value, displayName: user.displayName)
                    )
                )
            }
            guard !user.attributes.isEmpty else { continue }
            try await Self.apply(request, item: "attributes of user \(user.username)") {
                _ = try await api.updateUser(
                    path: .init(username: user.username),
                    body: .json(.init(attributes: .init(additionalProperties: user.attributes)))
                )
            }
        }
        for entity in seed.entities {
            try await Self.apply(request, item: "entity \(entity.id) in \(entity.app)/\(entity.entitySet)") {
                _ = try await api.putEntity(
                    path: .init(appID: entity.app, entitySet: entity.entitySet, entityID: entity.id),
                    body: .json(.init(fields: .init(additionalProperties: entity.fields)))
                )
            }
        }
        logger.info(
            "seeded",
            metadata: [
                "apps": "\(seed.apps.count)", "users": "\(seed.users.count)", "entities": "\(seed.entities.count)",
            ]
        )
    }

    /// Runs one admin handler as the one-time admin, turning its refusal into a seed error.
    private static func apply(
        _ request: RequestInfo,
        item: String,
        _ body: @Sendable () async throws -> Void
    ) async throws(SeedError) {
        do {
            try await RequestInfo.$current.withValue(request) { try await body() }
        } catch let error as APIError {
            throw SeedError(error, item: item)
        } catch {
            throw SeedError(
                APIError(.internalServerError, .seedFailed, "\(type(of: error)) was thrown."),
                item: item
            )
        }
    }
}

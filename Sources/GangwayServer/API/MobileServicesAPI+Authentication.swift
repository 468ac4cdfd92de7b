import Foundation
import GangwayProtocol
import GangwayServerStorage
import Logging
import OpenAPIRuntime

extension MobileServicesAPI {
    func getAppAuthentication(
        _ input: Operations.GetAppAuthentication.Input
    ) async throws -> Operations.GetAppAuthentication.Output {
        return .ok(.init(body: .json(wire(try await app(input.path.appID)))))
    }

    func setAppAuthentication(
        _ input: Operations.SetAppAuthentication.Input
    ) async throws -> Operations.SetAppAuthentication.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        var app = try await app(input.path.appID)
        let redirectURIs = body.redirectURIs ?? []
        guard redirectURIs.count <= RedirectURI.limit, Set(redirectURIs).count == redirectURIs.count else {
            throw APIError.badRequest(
                "Give at most \(RedirectURI.limit) redirect URIs, each once.",
                code: .invalidField
            )
        }
        guard redirectURIs.allSatisfy(RedirectURI.isValid) else {
            throw APIError.badRequest(RedirectURI.rule, code: .invalidField)
        }
        var authentication = AppAuthentication(type: .init(body._type), redirectURIs: redirectURIs)
        if let change = body.provider {
            guard IssuerURL.isValid(change.issuer) else {
                throw APIError.badRequest(IssuerURL.rule, code: .invalidField)
            }
            try Validation.text(change.clientID, "clientID", APILimits.clientID)
            var provider = IdentityProvider(
                issuer: change.issuer,
                clientID: change.clientID,
                createsUsers: change.createsUsers ?? false
            )
            if let secret = change.clientSecret {
                try Validation.text(secret, "clientSecret", APILimits.clientSecret)
                provider.sealedClientSecret = try seal(clientSecret: secret, appID: app.id)
            } else if let kept = app.authentication.provider, kept.issuer == provider.issuer,
                kept.clientID == provider.clientID
            {
                // The same client: its secret stays. Another client never inherits it.
                provider.sealedClientSecret = kept.sealedClientSecret
            }
            authentication.provider = provider
        }
        let old = app.authentication
        app.authentication = authentication
        try await perform { try await storage.updateApp(app) }
        if let note = AuditNote.current {
            note.change("type", from: old.type.rawValue, to: authentication.type.rawValue)
            note.change("issuer", from: old.provider?.issuer ?? "none", to: authentication.provider?.issuer ?? "none")
            note.change(
                "clientID",
                from: old.provider?.clientID ?? "none",
                to: authentication.provider?.clientID ?? "none"
            )
            note.change(
                "createsUsers",
                from: old.provider?.createsUsers ?? false,
                to: authentication.provider?.createsUsers ?? false
            )
            note.change(
                "redirectURIs",
                from: "[" + old.redirectURIs.joined(separator: ", ") + "]",
                to: "[" + authentication.redirectURIs.joined(separator: ", ") + "]"
            )
            if body.provider?.clientSecret != nil { note.add("client secret set") }
        }
        logger.notice(
            "app authentication set",
            metadata: [
                "app": "\(app.id)", "type": "\(authentication.type.rawValue)",
                "issuer": "\(authentication.provider?.issuer ?? "none")",
                "redirectURIs": "\(authentication.redirectURIs.count)",
            ]
        )
        return .ok(.init(body: .json(wire(app))))
    }

    func revokeUserSessions(
        _ input: Operations.RevokeUserSessions.Input
    ) async throws -> Operations.RevokeUserSessions.Output {
        let user = try await user(input.path.username)
        try await perform { try await storage.revokeSessions(username: user.username, appID: nil, deviceID: nil) }
        logger.notice("sessions revoked", metadata: ["user": "\(user.username)"])
        return .noContent(.init())
    }

    private func seal(clientSecret: String, appID: String) throws(APIError) -> Data {
        do {
            return try keys.server.seal(Data(clientSecret.utf8), for: IdentityProvider.sealPurpose(appID: appID))
        } catch {
            throw .storage(StorageError(.unavailable, "a client secret cannot be sealed"))
        }
    }

    func wire(_ app: AppRecord) -> Components.Schemas.AppAuthentication {
        let authentication = app.authentication
        return .init(
            _type: .init(authentication.type),
            provider: authentication.provider.map {
                .init(
                    issuer: $0.issuer,
                    clientID: $0.clientID,
                    createsUsers: $0.createsUsers,
                    hasClientSecret: $0.sealedClientSecret != nil,
                    redirectURI: FederatedSignIn.callbackURL(issuer: issuer(of: app))
                )
            },
            redirectURIs: authentication.redirectURIs
        )
    }
}

extension Components.Schemas.AuthenticationType {
    init(_ kind: AppAuthentication.Kind) {
        switch kind {
        case .basic: self = .basic
        case .oauth2: self = .oauth2
        }
    }
}

extension AppAuthentication.Kind {
    init(_ type: Components.Schemas.AuthenticationType) {
        switch type {
        case .basic: self = .basic
        case .oauth2: self = .oauth2
        }
    }
}

import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The apps (`gangway admin apps`): their settings, email domains, minimum version and
/// how their users sign in.
struct AppsHandler: APIHandler {
    let services: APIServices

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
                createsUsers: change.createsUsers ?? false,
                attributeClaims: try Self.checked(attributeClaims: change.attributeClaims?.additionalProperties ?? [:])
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
                "attributeClaims",
                from: Self.describe(old.provider?.attributeClaims),
                to: Self.describe(authentication.provider?.attributeClaims)
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

    /// The attributes a provider's claims set, as the document bounds them: at most
    /// ``APILimits/userAttributes``, each named as a field, each from a claim of
    /// ``APILimits/claimName`` characters; `nil` for none.
    static func checked(attributeClaims: [String: String]) throws(APIError) -> [String: String]? {
        guard APILimits.userAttributes.contains(attributeClaims.count) else {
            throw APIError.badRequest(
                "Claims set at most \(APILimits.userAttributes.upperBound) attributes.",
                code: .invalidField
            )
        }
        for (attribute, claim) in attributeClaims {
            try Validation.fieldName(attribute)
            try Validation.text(claim, "the claim of \(attribute)", APILimits.claimName)
        }
        return attributeClaims.isEmpty ? nil : attributeClaims
    }

    /// `stations from station_codes, teams from groups`, or `none`, for the audit.
    static func describe(_ attributeClaims: [String: String]?) -> String {
        guard let attributeClaims, !attributeClaims.isEmpty else { return "none" }
        return attributeClaims.sorted { $0.key < $1.key }.map { "\($0.key) from \($0.value)" }
            .joined(separator: ", ")
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
                    redirectURI: FederatedSignIn.callbackURL(issuer: oauth.issuer(of: app)),
                    attributeClaims: $0.attributeClaims.map { .init(additionalProperties: $0) }
                )
            },
            redirectURIs: authentication.redirectURIs
        )
    }

    func listApps(_ input: Operations.ListApps.Input) async throws -> Operations.ListApps.Output {
        let apps = try await perform { try await storage.apps() }
        return .ok(.init(body: .json(apps.map(Self.wire))))
    }

    func createApp(_ input: Operations.CreateApp.Input) async throws -> Operations.CreateApp.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        try Validation.identifier(body.appID, "appID")
        try Validation.name(body.name, "name")
        var app = AppRecord(id: body.appID, name: body.name, createdAt: now())
        app.emailDomains = try await checkedDomains(body.emailDomains ?? [], for: app.id)
        app.minimumVersion = try Self.checkedVersion(body.minimumVersion)
        app.settings = try AppRecord.defaultSettings.merging(body.settings).validated()
        do {
            try await storage.insertApp(app)
        } catch  where error.code == .duplicate {
            throw APIError(.conflict, .appExists, "An app with this ID exists already.")
        } catch {
            throw APIError.storage(error)
        }
        if let note = AuditNote.current {
            note.target = "/admin/apps/\(app.id)"
            note.add("name: \(app.name)")
            if !app.emailDomains.isEmpty { note.add("emailDomains: [\(app.emailDomains.joined(separator: ", "))]") }
        }
        logger.info("app created", metadata: ["app": "\(app.id)"])
        return .created(.init(body: .json(Self.wire(app))))
    }

    func getApp(_ input: Operations.GetApp.Input) async throws -> Operations.GetApp.Output {
        return .ok(.init(body: .json(Self.wire(try await app(input.path.appID)))))
    }

    func updateApp(_ input: Operations.UpdateApp.Input) async throws -> Operations.UpdateApp.Output {
        guard case .json(let body) = input.body else { throw APIError.badRequest("Send the body as JSON.") }
        let old = try await app(input.path.appID)
        var app = old
        if let name = body.name {
            try Validation.name(name, "name")
            app.name = name
        }
        if let domains = body.emailDomains { app.emailDomains = try await checkedDomains(domains, for: app.id) }
        if let minimumVersion = body.minimumVersion {
            app.minimumVersion = minimumVersion.isEmpty ? nil : try Self.checkedVersion(minimumVersion)
        }
        let keptData = app.settings.passcodeResetKeepsData
        app.settings = try app.settings.merging(body.settings).validated()
        try await perform { try await storage.updateApp(app) }
        AuditNote.current?.changes(from: Self.wire(old), to: Self.wire(app))
        if keptData, !app.settings.passcodeResetKeepsData {
            // Turned off: the secrets given out so far must open nothing any more.
            try await devices.rotateRecoverySecrets(try await perform { try await storage.devices(appID: app.id) })
        }
        logger.info("app updated", metadata: ["app": "\(app.id)"])
        return .ok(.init(body: .json(Self.wire(app))))
    }

    private func checkedDomains(_ domains: [String], for appID: String) async throws(APIError) -> [String] {
        guard domains.count <= 100 else {
            throw APIError.badRequest("At most 100 email domains.", code: .invalidDomain)
        }
        var checked: [String] = []
        for domain in domains {
            let domain = try Validation.emailDomain(domain)
            if checked.contains(domain) { continue }
            if let owner = try await perform({ try await storage.app(forEmailDomain: domain) }), owner.id != appID {
                throw APIError(.conflict, .domainTaken, "The domain \(domain) belongs to another app.")
            }
            checked.append(domain)
        }
        return checked
    }

    private static func checkedVersion(_ text: String?) throws(APIError) -> String? {
        guard let text, !text.isEmpty else { return nil }
        _ = try AppVersion(text)
        return text
    }

    static func wire(_ app: AppRecord) -> Components.Schemas.App {
        .init(
            appID: app.id,
            name: app.name,
            authType: .init(app.authentication.type),
            emailDomains: app.emailDomains,
            minimumVersion: app.minimumVersion,
            settings: app.settings
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

extension AppRecord {
    public static let defaultSettings = Components.Schemas.AppSettings.defaults
}

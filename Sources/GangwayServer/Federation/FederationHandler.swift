import Foundation
import GangwayProtocol
import GangwayServerStorage
import Logging

/// Federated sign-in's side of the server: the users a provider signs in, their grants
/// at the provider, and the codes that end a sign-in.
struct FederationHandler: APIHandler {
    let services: APIServices

    /// Why a person the provider signed in does not get in. New cases may be added.
    enum FederatedUserRefusal: Error, Sendable, Hashable {
        /// No user is linked to the subject, and the provider does not create users.
        case notLinked(issuer: String, subject: String)
        /// The linked user is blocked.
        case blocked
    }

    /// What a provider's refresh token is sealed to: opened for another app, it fails.
    static func providerTokenPurpose(appID: String) -> String { "oidc-provider-refresh-token:\(appID)" }

    /// The app's client secret at its provider, opened; `nil` for a public client.
    func clientSecret(of app: AppRecord) throws(FederationError) -> String? {
        guard let sealed = app.authentication.provider?.sealedClientSecret else { return nil }
        do {
            let bytes = try keys.server.open(sealed, for: IdentityProvider.sealPurpose(appID: app.id), plainLength: -1)
            return String(decoding: bytes, as: UTF8.self)
        } catch {
            throw .misconfigured("the app's client secret does not open with the server key; set it again")
        }
    }

    /// The user the provider's subject is linked to; for a subject seen the first time,
    /// a new user when the provider creates users. An existing user is never matched by
    /// name or email address: only an admin's link says a provider's person is them, so
    /// whoever controls an address at the provider cannot take over an account here.
    func federatedUser(
        _ identity: ProviderIdentity,
        provider: IdentityProvider,
        app: AppRecord
    ) async throws -> UserRecord {
        if let link = try await perform({
            try await storage.identityLink(issuer: identity.issuer, subject: identity.subject, kind: .user)
        }) {
            guard let user = try await perform({ try await storage.user(named: link.holder.name) }) else {
                throw FederatedUserRefusal.notLinked(issuer: identity.issuer, subject: identity.subject)
            }
            guard !user.blocked else { throw FederatedUserRefusal.blocked }
            return try await withAttributes(of: identity, provider: provider, app: app, for: user)
        }
        guard provider.createsUsers else {
            logger.notice(
                "federated sign-in of an unlinked subject",
                metadata: ["app": "\(app.id)", "issuer": "\(identity.issuer)", "subject": "\(identity.subject)"]
            )
            throw FederatedUserRefusal.notLinked(issuer: identity.issuer, subject: identity.subject)
        }
        let user = try await createFederatedUser(identity, app: app)
        return try await withAttributes(of: identity, provider: provider, app: app, for: user)
    }

    /// `user` with the attributes the provider's claims set (``IdentityProvider/attributeClaims``),
    /// stored when they changed: each attribute named takes its claim's values (a value
    /// the API would refuse is left out, and logged without itself), and loses them when
    /// the token has no such claim. Attributes no claim sets stay as the admin set them.
    func withAttributes(
        of identity: ProviderIdentity,
        provider: IdentityProvider,
        app: AppRecord,
        for user: UserRecord
    ) async throws -> UserRecord {
        guard let claims = provider.attributeClaims, !claims.isEmpty else { return user }
        var values = user.attributes.values
        var dropped = 0
        for (attribute, claim) in claims {
            var kept: [String] = []
            for value in identity.texts[claim] ?? [] where !kept.contains(value) {
                guard kept.count < APILimits.attributeValues.upperBound,
                    (try? Validation.text(value, "a value", APILimits.attributeValue)) != nil
                else {
                    dropped += 1
                    continue
                }
                kept.append(value)
            }
            // A user holds as many attributes as the document bounds, the admin's first.
            if values[attribute] == nil, !kept.isEmpty, values.count >= APILimits.userAttributes.upperBound {
                dropped += kept.count
                continue
            }
            values[attribute] = kept.isEmpty ? nil : kept
        }
        if dropped > 0 {
            logger.notice(
                "claim values not taken as user attributes",
                metadata: ["app": "\(app.id)", "user": "\(user.username)", "values": "\(dropped)"]
            )
        }
        let attributes = UserAttributes(values)
        guard attributes != user.attributes else { return user }
        var updated = user
        updated.attributes = attributes
        try await perform { try await storage.updateUser(updated) }
        logger.info(
            "user attributes set from the provider's claims",
            metadata: ["app": "\(app.id)", "user": "\(user.username)", "attributes": "\(claims.keys.sorted())"]
        )
        return updated
    }

    /// A new user for a subject, named after what the provider says (preferred user name,
    /// then email address), with a number added when the name is taken, and a password no
    /// one knows: they sign in through the provider only.
    private func createFederatedUser(_ identity: ProviderIdentity, app: AppRecord) async throws -> UserRecord {
        let base = Self.username(from: identity)
        let password = try await passwords.hash(BearerToken.random())
        let time = now()
        let display = (identity.name ?? identity.email ?? base).trimmingCharacters(in: .whitespacesAndNewlines)
        let displayName =
            Validation.hasControlCharacters(display) || display.isEmpty ? base : String(display.prefix(128))
        let candidates = [base] + (2...9).map { "\(base)-\($0)" } + ["\(base)-\(Self.randomBytes(8).base64URLEncoded)"]
        for name in candidates {
            let user = UserRecord(username: name, displayName: displayName, passwordHash: password, createdAt: time)
            do {
                try await storage.insertUser(user)
            } catch {
                if error.code == .duplicate { continue }
                throw APIError.storage(error)
            }
            do {
                try await storage.insertIdentityLink(
                    IdentityLinkRecord(
                        issuer: identity.issuer,
                        subject: identity.subject,
                        holder: .user(name),
                        createdAt: time
                    )
                )
            } catch {
                // Two first sign-ins of one person at once: the other one linked first.
                guard error.code == .duplicate,
                    let link = try await perform({
                        try await storage.identityLink(issuer: identity.issuer, subject: identity.subject, kind: .user)
                    }),
                    let user = try await perform({ try await storage.user(named: link.holder.name) })
                else { throw APIError.storage(error) }
                return user
            }
            logger.notice(
                "user created at a federated sign-in",
                metadata: ["app": "\(app.id)", "user": "\(name)", "issuer": "\(identity.issuer)"]
            )
            return user
        }
        throw APIError.storage(StorageError(.unavailable, "no free user name was found"))
    }

    /// A user name from the provider's claims, within Gangway's rule (letters, digits,
    /// `.`, `_`, `@`, `-`), lowercased as sign-ins are.
    static func username(from identity: ProviderIdentity) -> String {
        for claim in [identity.preferredUsername, identity.email] {
            guard let claim else { continue }
            let kept = String(
                claim.lowercased().unicodeScalars.filter {
                    ("a"..."z").contains($0) || ("0"..."9").contains($0) || "._@-".unicodeScalars.contains($0)
                }.prefix(100)
            )
            if !kept.isEmpty { return kept }
        }
        return "user"
    }

    /// What the provider granted, to keep with the tokens of the sign-in: its refresh
    /// token sealed under the server's key, and when its access token ends.
    func providerGrant(
        _ tokens: IdentityProviderClient.Tokens,
        app: AppRecord,
        username: String
    ) throws -> ProviderGrantRecord {
        let time = now()
        return ProviderGrantRecord(
            originHash: Data(),
            appID: app.id,
            username: username,
            issuer: app.authentication.provider?.issuer ?? "",
            sealedRefreshToken: try tokens.refreshToken.map {
                try keys.server.seal(Data($0.utf8), for: Self.providerTokenPurpose(appID: app.id))
            },
            accessExpiresAt: time.addingTimeInterval(
                tokens.expiresIn.map(TimeInterval.init) ?? settings.sessionLifetime.seconds
            ),
            createdAt: time
        )
    }

    /// A code of the authorization code grant for `username`, valid a minute; with the
    /// provider's grant the sign-in came with, which its redemption takes on.
    func issueAuthorizationCode(
        app: AppRecord,
        authorization: AuthorizationRequest,
        username: String,
        providerGrant: ProviderGrantRecord? = nil
    ) async throws(APIError) -> String {
        let code = BearerToken.make()
        let hash = BearerToken.hash(code)
        let time = now()
        if var providerGrant {
            providerGrant.originHash = hash
            try await perform { try await storage.insertProviderGrant(providerGrant) }
        }
        try await perform {
            try await storage.insertAuthorizationCode(
                AuthorizationCodeRecord(
                    codeHash: hash,
                    appID: app.id,
                    username: username,
                    deviceID: authorization.deviceID,
                    redirectURI: authorization.redirectURI,
                    codeChallenge: authorization.codeChallenge,
                    nonce: authorization.nonce,
                    createdAt: time,
                    expiresAt: time.addingTimeInterval(AuthorizationPage.codeLifetime)
                )
            )
        }
        logger.notice(
            "authorization code issued",
            metadata: ["app": "\(app.id)", "request": "\(RequestInfo.current.requestID)"]
        )
        return code
    }

    /// Refreshes the provider's grant behind a refresh token family before Gangway
    /// rotates the family's token: a person the provider no longer lets in (blocked,
    /// signed out everywhere, a changed password) loses the app at this refresh. Throws
    /// `invalid_grant` (after revoking the family) when the provider refuses, and
    /// `temporarily_unavailable` when it cannot be reached, which leaves the family as it
    /// was, so the device tries again later.
    func renewAtProvider(_ grant: ProviderGrantRecord, app: AppRecord) async throws -> ProviderGrantRecord {
        guard let provider = app.authentication.provider, provider.issuer == grant.issuer,
            let familyID = grant.familyID
        else {
            // The admin changed the app's provider: the old one's sign-ins end.
            if let familyID = grant.familyID {
                try await perform { try await storage.revokeRefreshFamily(familyID) }
            }
            throw OAuthError.invalidGrant
        }
        guard let sealed = grant.sealedRefreshToken else {
            // No refresh token: the sign-in lasts as long as the provider's access token.
            guard grant.accessExpiresAt > now() else {
                try await perform { try await storage.revokeRefreshFamily(familyID) }
                throw OAuthError.invalidGrant
            }
            return grant
        }
        let tokens: IdentityProviderClient.Tokens
        do {
            let refreshToken = String(
                decoding: try keys.server.open(sealed, for: Self.providerTokenPurpose(appID: app.id), plainLength: -1),
                as: UTF8.self
            )
            tokens = try await providers.refresh(
                refreshToken,
                provider: provider,
                clientSecret: try clientSecret(of: app)
            )
        } catch let error as FederationError {
            guard case .refused = error.code else {
                logger.error(
                    "identity provider unavailable at a refresh",
                    metadata: ["app": "\(app.id)", "reason": "\(error.description)"]
                )
                throw OAuthError.providerUnavailable
            }
            try await perform { try await storage.revokeRefreshFamily(familyID) }
            logger.notice(
                "identity provider ended a sign-in; its tokens revoked",
                metadata: ["app": "\(app.id)", "user": "\(grant.username)", "reason": "\(error.description)"]
            )
            throw OAuthError.invalidGrant
        } catch {
            throw OAuthError.providerUnavailable
        }
        var renewed = grant
        if let next = tokens.refreshToken {
            renewed.sealedRefreshToken = try keys.server.seal(
                Data(next.utf8),
                for: Self.providerTokenPurpose(appID: app.id)
            )
        }
        renewed.accessExpiresAt = now().addingTimeInterval(
            tokens.expiresIn.map(TimeInterval.init) ?? settings.sessionLifetime.seconds
        )
        try await perform { try await storage.updateProviderGrant(renewed) }
        return renewed
    }
}

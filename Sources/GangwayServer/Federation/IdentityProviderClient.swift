import AsyncHTTPClient
import Foundation
import GangwayForms
import GangwayProtocol
import GangwayServerStorage
import JWTKit
import NIOCore
import NIOHTTP1
import Tracing

/// The server as a relying party of an app's OpenID Connect provider: discovery, the key
/// set, the token endpoint and the checks an ID token must pass (OpenID Connect Core
/// §3.1.3.7).
///
/// Discovery documents are kept an hour. A key set is kept until a token names a key it
/// does not hold: then it is fetched again, once for that token, which is how a provider's
/// key rotation is followed without a restart. Every request has a time limit, follows
/// no redirect, and reads at most 1 MiB.
actor IdentityProviderClient {
    /// The answer of a provider's token endpoint (RFC 6749 §5.1).
    struct Tokens: Sendable {
        var idToken: String?
        var refreshToken: String?
        /// Seconds the provider's access token lives, when it says.
        var expiresIn: Int?
    }

    private struct KeySet {
        /// The keys that have an ID, by it.
        var keys: JWTKeyCollection
        var identifiers: Set<String>
        /// Every usable signing key, with its kind and algorithm, for a token that names
        /// no key: its JWK without an ID.
        var unnamed: [(kind: KeyKind, algorithm: String?, jwk: JWK)]
    }

    /// The kinds of key an ID token's algorithm can be verified with.
    enum KeyKind: Sendable, Hashable {
        case rsa, p256, p384

        init?(algorithm: String) {
            switch algorithm {
            case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512": self = .rsa
            case "ES256": self = .p256
            case "ES384": self = .p384
            default: return nil
            }
        }

        init?(jwk entry: [String: Any]) {
            switch (entry["kty"] as? String, entry["crv"] as? String) {
            case ("RSA", _): self = .rsa
            case ("EC", "P-256"): self = .p256
            case ("EC", "P-384"): self = .p384
            default: return nil
            }
        }
    }

    /// How long a discovery document is trusted.
    static let metadataLifetime: TimeInterval = 60 * 60
    /// How long one request to a provider may take.
    static let timeout: TimeAmount = .seconds(10)
    private static let maximumBody = 1 << 20

    private let client: HTTPClient
    /// Renewals at a provider, one at a time per refresh token family.
    nonisolated let renewals = RenewalTurns()
    private let now: @Sendable () -> Date
    /// Where each request's span goes (``ServerTracer``).
    private let tracer: ServerTracer
    private var metadata: [String: (ProviderMetadata, fetchedAt: Date)] = [:]
    private var keySets: [String: KeySet] = [:]

    init(
        client: HTTPClient = IdentityProviderClient.sharedHTTPClient,
        now: @escaping @Sendable () -> Date,
        tracer: ServerTracer = .none
    ) {
        self.client = client
        self.now = now
        self.tracer = tracer
    }

    /// One client for every server in the process: it needs no shutdown while the process
    /// lives, and follows no redirect (a token endpoint that redirects is misconfigured).
    static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(10))
        // The server's own spans say what it asked (``ServerTracer``); the client's would
        // add the URL whole, its query too.
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// The provider's discovery document, checked: its issuer is `issuer` exactly.
    func metadata(issuer: String) async throws(FederationError) -> ProviderMetadata {
        if let (document, fetchedAt) = metadata[issuer], now().timeIntervalSince(fetchedAt) < Self.metadataLifetime {
            return document
        }
        let body = try await get(ProviderMetadata.url(issuer: issuer), what: "the discovery document")
        let document: ProviderMetadata
        do {
            document = try JSONDecoder().decode(ProviderMetadata.self, from: body)
        } catch {
            throw .misconfigured("the discovery document is not OpenID Connect discovery JSON")
        }
        let checked = try document.checked(issuer: issuer)
        metadata[issuer] = (checked, now())
        return checked
    }

    /// Redeems an authorization code (RFC 6749 §4.1.3, with the PKCE verifier).
    func redeem(
        code: String,
        verifier: String,
        redirectURI: String,
        provider: IdentityProvider,
        clientSecret: String?
    ) async throws(FederationError) -> Tokens {
        try await token(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", verifier),
            ],
            provider: provider,
            clientSecret: clientSecret
        )
    }

    /// Refreshes at the provider (RFC 6749 §6): `refused("invalid_grant")` when the
    /// provider ended the person's grant.
    func refresh(
        _ refreshToken: String,
        provider: IdentityProvider,
        clientSecret: String?
    ) async throws(FederationError) -> Tokens {
        try await token(
            [("grant_type", "refresh_token"), ("refresh_token", refreshToken)],
            provider: provider,
            clientSecret: clientSecret
        )
    }

    /// Who `idToken` says signed in, once its signature verifies against the provider's
    /// published keys and its claims pass OpenID Connect's checks.
    func identity(
        of idToken: String,
        provider: IdentityProvider,
        nonce: String?
    ) async throws(FederationError) -> ProviderIdentity {
        let header = try Self.header(of: idToken)
        var keySet = try await keySet(issuer: provider.issuer, refetch: false)
        let token: ProviderIDToken
        if let kid = header.kid {
            if !keySet.identifiers.contains(kid) {
                // A key this server has not seen: the provider may have rotated its keys.
                keySet = try await self.keySet(issuer: provider.issuer, refetch: true)
                guard keySet.identifiers.contains(kid) else {
                    throw .invalidIDToken("the ID token is signed with a key the provider does not publish")
                }
            }
            token = try await Self.verify(idToken, with: keySet.keys)
        } else {
            // No key named: OpenID Connect Core §10.1 lets a provider leave `kid` out
            // when only one key could have signed. Exactly one published key of the
            // token's kind is taken; when none or several are, or it does not verify, the
            // key set is fetched again once (the provider may have rotated it).
            do {
                token = try await Self.verifyUnnamed(idToken, algorithm: header.alg, with: keySet)
            } catch {
                keySet = try await self.keySet(issuer: provider.issuer, refetch: true)
                token = try await Self.verifyUnnamed(idToken, algorithm: header.alg, with: keySet)
            }
        }
        return try ProviderIdentity(
            token,
            issuer: provider.issuer,
            clientID: provider.clientID,
            nonce: nonce,
            now: now()
        )
    }

    // MARK: Requests

    private func token(
        _ fields: [(String, String)],
        provider: IdentityProvider,
        clientSecret: String?
    ) async throws(FederationError) -> Tokens {
        let document = try await metadata(issuer: provider.issuer)
        var form = fields
        var request = HTTPClientRequest(url: document.tokenEndpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        if let clientSecret, !document.postsClientSecret {
            // RFC 6749 §2.3.1: each part form-encoded, then joined and base64-encoded.
            let credentials = "\(FormBody.encoded(provider.clientID)):\(FormBody.encoded(clientSecret))"
            request.headers.add(name: "Authorization", value: "Basic \(Data(credentials.utf8).base64EncodedString())")
        } else {
            form.append(("client_id", provider.clientID))
            if let clientSecret { form.append(("client_secret", clientSecret)) }
        }
        request.body = .bytes(ByteBuffer(string: FormBody.text(form)))
        let (status, body) = try await send(request, what: "the token endpoint")
        guard status == .ok else {
            if status.code >= 500 { throw .unavailable("the token endpoint answered \(status.code)") }
            let sent = (try? JSONDecoder().decode(TokenError.self, from: body))?.error ?? "invalid_request"
            let error = Self.safeErrorCode(sent)
            throw FederationError(.refused(error), "the token endpoint refused: \(error)")
        }
        guard let answer = try? JSONDecoder().decode(TokenAnswer.self, from: body) else {
            throw .misconfigured("the token endpoint's answer is not an OAuth token response")
        }
        return Tokens(idToken: answer.idToken, refreshToken: answer.refreshToken, expiresIn: answer.expiresIn)
    }

    private func keySet(issuer: String, refetch: Bool) async throws(FederationError) -> KeySet {
        if !refetch, let keySet = keySets[issuer] { return keySet }
        let document = try await metadata(issuer: issuer)
        let body = try await get(document.jwksURI, what: "the key set")
        // Read key by key, so a key of a kind JWTKit does not take is skipped, not fatal.
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let entries = object["keys"] as? [[String: Any]]
        else { throw .misconfigured("the key set is not a JSON Web Key Set") }
        let keys = JWTKeyCollection()
        var identifiers: Set<String> = []
        var unnamed: [(kind: KeyKind, algorithm: String?, jwk: JWK)] = []
        for entry in entries {
            // Only signing keys; one bad key does not cost the others.
            guard entry["use"] == nil || entry["use"] as? String == "sig", let kind = KeyKind(jwk: entry) else {
                continue
            }
            // JWTKit keeps keys by ID: a key the token does not name is kept under one of
            // Gangway's, and used as the only (default) key of a set of its own.
            var anonymous = entry
            anonymous["kid"] = Self.unnamedKeyID
            guard let json = try? JSONSerialization.data(withJSONObject: anonymous),
                let jwk = try? JSONDecoder().decode(JWK.self, from: json),
                (try? await JWTKeyCollection().add(jwk: jwk)) != nil
            else { continue }
            unnamed.append((kind, entry["alg"] as? String, jwk))
            if let kid = entry["kid"] as? String, let named = try? JSONSerialization.data(withJSONObject: entry),
                let namedJWK = try? JSONDecoder().decode(JWK.self, from: named),
                (try? await keys.add(jwk: namedJWK)) != nil
            {
                identifiers.insert(kid)
            }
        }
        guard !unnamed.isEmpty else { throw .misconfigured("the key set holds no usable signing key") }
        let keySet = KeySet(keys: keys, identifiers: identifiers, unnamed: unnamed)
        keySets[issuer] = keySet
        return keySet
    }

    private func get(_ url: String, what: String) async throws(FederationError) -> Data {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let (status, body) = try await send(request, what: what)
        guard status == .ok else {
            throw status.code >= 500
                ? .unavailable("\(what) answered \(status.code)")
                : .misconfigured("\(what) answered \(status.code)")
        }
        return body
    }

    private func send(
        _ request: HTTPClientRequest,
        what: String
    ) async throws(FederationError) -> (HTTPResponseStatus, Data) {
        // A span of the sign-in's: "POST token endpoint", "GET key set".
        let name = "\(request.method.rawValue) " + (what.hasPrefix("the ") ? String(what.dropFirst(4)) : what)
        let host = URLComponents(string: request.url)?.host
        return try await tracer.withSpan(
            name,
            ofKind: .client,
            attributes: { attributes in
                attributes["http.request.method"] = request.method.rawValue
                if let host { attributes["server.address"] = host }
            }
        ) { span throws(FederationError) in
            var request = request
            for header in tracer.headers() { request.headers.add(name: header.name, value: header.value) }
            do {
                let response = try await client.execute(request, timeout: Self.timeout)
                span?.attributes["http.response.status_code"] = Int(response.status.code)
                let body = try await response.body.collect(upTo: Self.maximumBody)
                return (response.status, Data(body.readableBytesView))
            } catch {
                throw .unavailable("\(what) could not be reached")
            }
        }
    }

    // MARK: Parsing

    private struct Header: Decodable {
        var alg: String
        var kid: String?
    }

    private static let unnamedKeyID = "gangway-key-without-id"

    private static func verify(
        _ idToken: String,
        with keys: JWTKeyCollection
    ) async throws(FederationError)
        -> ProviderIDToken
    {
        do {
            return try await keys.verify(idToken, as: ProviderIDToken.self)
        } catch {
            throw (error as? JWTError)?.errorType == .signatureVerificationFailed
                ? .invalidIDToken("the ID token's signature does not verify with the provider's key")
                : .invalidIDToken("the ID token's claims cannot be read (iss, sub, aud and exp are required)")
        }
    }

    /// `idToken`, which names no key, verified with the one key of `keySet` of its kind.
    private static func verifyUnnamed(
        _ idToken: String,
        algorithm: String,
        with keySet: KeySet
    ) async throws(FederationError) -> ProviderIDToken {
        let candidates = unnamedCandidates(keySet, algorithm: algorithm)
        guard candidates.count == 1, let only = candidates.first else {
            throw .invalidIDToken(
                candidates.isEmpty
                    ? "the ID token names no key, and the provider publishes none of its kind"
                    : "the ID token names no key, and the provider publishes \(candidates.count) that could have signed it"
            )
        }
        let keys = JWTKeyCollection()
        guard (try? await keys.add(jwk: only, isDefault: true)) != nil else {
            throw .misconfigured("the provider's key cannot be used")
        }
        return try await verify(idToken, with: keys)
    }

    /// The keys of `keySet` that could have signed a token of `algorithm` that names none.
    private static func unnamedCandidates(_ keySet: KeySet, algorithm: String) -> [JWK] {
        guard let kind = KeyKind(algorithm: algorithm) else { return [] }
        return keySet.unnamed.filter { $0.kind == kind && ($0.algorithm == nil || $0.algorithm == algorithm) }
            .map(\.jwk)
    }

    /// The algorithms taken: asymmetric signatures only (RFC 8725 §3.1), so a token can
    /// never be "signed" with `none` or with a public key used as an HMAC secret.
    static let algorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384"]

    private static func header(of token: String) throws(FederationError) -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let json = Data(base64URLEncoded: String(parts[0])),
            let header = try? JSONDecoder().decode(Header.self, from: json)
        else { throw .invalidIDToken("the ID token is not a signed JWT") }
        guard algorithms.contains(header.alg) else {
            throw .invalidIDToken("the ID token's algorithm \(header.alg.prefix(16)) is not taken")
        }
        return header
    }

    /// An OAuth error code as the provider sent it, if it is one (RFC 6749 §5.2's
    /// characters, short); otherwise `invalid_request`.
    private static func safeErrorCode(_ code: String) -> String {
        let allowed = code.utf8.allSatisfy { (0x20...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }
        return allowed && code.utf8.count <= 64 ? code : "invalid_request"
    }

    private struct TokenAnswer: Decodable {
        var idToken: String?
        var refreshToken: String?
        var expiresIn: Int?

        private enum CodingKeys: String, CodingKey {
            case idToken = "id_token"
            case refreshToken = "refresh_token"
            case expiresIn = "expires_in"
        }
    }

    private struct TokenError: Decodable {
        var error: String
    }
}

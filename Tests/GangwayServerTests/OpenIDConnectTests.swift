import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import JWTKit
import Testing

/// OpenID Connect on an oauth2 app: discovery, the key set and ID tokens, checked with
/// JWTKit against the keys the server publishes, as a relying party would.
@Suite("OpenID Connect: discovery, the key set and ID tokens that verify", .servingTurn, .tags(.postgres), .skipsTags)
struct OpenIDConnectTests {
    struct IDToken: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var nonce: String?
        var name: String

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    /// The keys at the discovery document's `jwks_uri`.
    static func keys(
        _ api: API,
        _ configuration: Components.Schemas.OpenIDConfiguration
    ) async throws
        -> JWTKeyCollection
    {
        let path = try #require(URL(string: configuration.jwksUri)).path
        let reply = try await api.send(.get, path)
        try api.expectStatus(reply, .ok)
        return try await JWTKeyCollection().add(jwksJSON: reply.text)
    }

    /// The JSON text of a JWT's payload.
    static func payload(of jwt: String) -> String {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let data = Data(base64URLEncoded: String(parts[1])) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether `iat` and `exp` are JSON integers (RFC 7519 NumericDates with no fraction).
    static func hasIntegerDates(_ jwt: String) -> Bool {
        let text = payload(of: jwt)
        return ["iat", "exp"].allSatisfy { name in
            text.contains(try! Regex("\"\(name)\":[0-9]+[,}]"))
        }
    }

    @Test(
        "discovery names the endpoints; the code grant's ID token verifies with the published key, with its nonce",
        arguments: Backend.available
    )
    func idTokens(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await OAuthAuthorizationCodeTests.setUp(api)
            let reply = try await api.send(.get, "/apps/checks/.well-known/openid-configuration")
            try api.expectStatus(reply, .ok)
            let configuration = try reply.decode(Components.Schemas.OpenIDConfiguration.self)
            let issuer = "\(api.running.url.absoluteString)/apps/checks"
            #expect(configuration.issuer == issuer)
            #expect(configuration.jwksUri == issuer + "/oauth/jwks")
            #expect(configuration.userinfoEndpoint == issuer + "/oauth/userinfo")
            #expect(configuration.idTokenSigningAlgValuesSupported == ["ES256"])
            #expect(configuration.codeChallengeMethodsSupported == ["S256"])

            let request = OAuthAuthorizationCodeTests.request() + [("nonce", "n-0S6_WzA2Mj")]
            let back = try OAuthAuthorizationCodeTests.redirected(
                try await OAuthAuthorizationCodeTests.signIn(api, request)
            )
            let code = try #require(back.fields["code"])
            let tokens = try await OAuthAuthorizationCodeTests.redeem(api, code: code)
            let body = try tokens.decode(Components.Schemas.TokenResponse.self)
            let idToken = try #require(body.idToken)

            let keys = try await Self.keys(api, configuration)
            let claims = try await keys.verify(idToken, as: IDToken.self)
            #expect(claims.iss.value == issuer)
            #expect(claims.aud.value == ["checks"])
            #expect(claims.sub.value == "alice" && claims.name == "Alice")
            #expect(claims.nonce == "n-0S6_WzA2Mj")
            #expect(claims.exp.value.timeIntervalSince(claims.iat.value) == 600)
            // Whole seconds, as mainstream clients expect (the test clock has fractions).
            #expect(Self.hasIntegerDates(idToken), "\(Self.payload(of: idToken))")

            // Changed by one character, it no longer verifies.
            var tampered = Array(idToken)
            let index = tampered.index(tampered.startIndex, offsetBy: idToken.count / 2)
            tampered[index] = tampered[index] == "A" ? "B" : "A"
            await #expect(throws: (any Error).self) {
                _ = try await keys.verify(String(tampered), as: IDToken.self)
            }

            // The device grant's and a refresh's ID tokens verify too, without a nonce.
            let device = try await OAuthDeviceGrantTests.signedIn(api)
            let refreshed = try await OAuthDeviceGrantTests.refresh(api, device.refresh)
            let refreshedToken = try #require(try refreshed.decode(Components.Schemas.TokenResponse.self).idToken)
            let again = try await keys.verify(refreshedToken, as: IDToken.self)
            #expect(again.sub.value == "alice" && again.nonce == nil)
            #expect(Self.hasIntegerDates(refreshedToken), "\(Self.payload(of: refreshedToken))")
        }
    }

    @Test("a basic app has no OpenID metadata and no key set")
    func basicApp() async throws {
        try await ServerFixture().runSeeded { api in
            #expect(try await api.send(.get, "/apps/checks/.well-known/openid-configuration").status == .notFound)
            let keys = try await api.send(.get, "/apps/checks/oauth/jwks")
            #expect(keys.status == .notFound)
            #expect(try OAuthDeviceGrantTests.error(of: keys) == "invalid_request")
            #expect(try await api.send(.get, "/apps/nope/oauth/jwks").status == .notFound)
        }
    }
}

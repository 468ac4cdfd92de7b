import Crypto
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

/// The authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636, RFC 8252) over HTTP:
/// the sign-in page, the redirect with the code, its redemption once.
@Suite(
    "OAuth 2.0: the authorization code grant with PKCE, its sign-in page and redirects",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct OAuthAuthorizationCodeTests {
    static let loopback = "http://127.0.0.1/callback"
    static let custom = "com.airline.checks:/oauth2redirect"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-checks"
    static var challenge: String { Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded }

    static func setUp(_ api: API) async throws {
        let body = #"{"type": "oauth2", "redirectURIs": ["\#(loopback)", "\#(custom)"]}"#
        try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/authentication", json: body), .ok)
    }

    /// The authorization request's query.
    static func query(_ fields: [(String, String)]) -> String { RunningTestServer.formBody(fields) }

    static func request(
        redirect: String = "http://127.0.0.1:51234/callback",
        state: String = "af0ifjsldkj",
        replacing: [String: String?] = [:]
    ) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("response_type", "code"), ("client_id", "checks"), ("redirect_uri", redirect), ("state", state),
            ("code_challenge", challenge), ("code_challenge_method", "S256"), ("device_id", "tablet-7"),
        ]
        for (name, value) in replacing {
            fields.removeAll { $0.0 == name }
            if let value { fields.append((name, value)) }
        }
        return fields
    }

    /// The sign-in page opened with `fields` as its query and its form sent, as a browser
    /// does (in `browser`, a new one by default); the page that refuses the request, if it does.
    static func signIn(
        _ api: API,
        _ fields: [(String, String)],
        username: String = "alice",
        password: String = "alice-password",
        decision: String = "approve",
        browser: PageBrowser? = nil
    ) async throws -> API.Reply {
        let browser = browser ?? PageBrowser(api.running)
        let page = try await browser.get("/apps/checks/oauth/authorize?" + query(fields))
        guard page.status == .ok else { return page }
        return try await browser.submit(
            page,
            to: "/apps/checks/oauth/authorize",
            [("username", username), ("password", password), ("decision", decision)]
        )
    }

    /// The query of a redirect's `Location`.
    static func redirected(_ reply: API.Reply) throws -> (target: String, fields: [String: String]) {
        #expect(reply.status == .seeOther)
        let location = try #require(reply.headers[.location])
        let components = try #require(URLComponents(string: location))
        var fields: [String: String] = [:]
        for item in components.queryItems ?? [] { fields[item.name] = item.value }
        return (String(location.prefix { $0 != "?" }), fields)
    }

    static func redeem(
        _ api: API,
        code: String,
        redirect: String = "http://127.0.0.1:51234/callback",
        verifier: String = verifier
    ) async throws -> API.Reply {
        try await OAuthDeviceGrantTests.form(
            api,
            "/apps/checks/oauth/token",
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                ("code_verifier", verifier), ("client_id", "checks"),
            ]
        )
    }

    @Test(
        "signed in on the page: back to the app with the code and its state; the code gives tokens once",
        arguments: Backend.available
    )
    func codeFlow(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await Self.setUp(api)
            let metadata = try await api.send(.get, "/.well-known/oauth-authorization-server/apps/checks")
            let document = try metadata.decode(Components.Schemas.AuthorizationServerMetadata.self)
            #expect(document.authorizationEndpoint == document.issuer + "/oauth/authorize")
            #expect(document.codeChallengeMethodsSupported == ["S256"])
            #expect(document.responseTypesSupported == ["code"])
            #expect(document.grantTypesSupported.contains("authorization_code"))

            let page = try await api.send(.get, "/apps/checks/oauth/authorize?" + Self.query(Self.request()))
            try api.expectStatus(page, .ok)
            #expect(page.text.contains("<h1>Sign in to Ground checks</h1>"))
            #expect(page.text.contains(#"name="code_challenge" value="\#(Self.challenge)""#))
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("form-action 'self' http://127.0.0.1:*") && policy.contains("default-src 'none'"))
            #expect(!page.text.contains("<script"))

            let reply = try await Self.signIn(api, Self.request())
            let (target, fields) = try Self.redirected(reply)
            #expect(target == "http://127.0.0.1:51234/callback", "the port the app listens on")
            #expect(fields["state"] == "af0ifjsldkj")
            #expect(fields["iss"] == document.issuer)
            #expect(reply.headers[.cacheControl] == "no-store")
            let code = try #require(fields["code"])

            let tokens = try OAuthDeviceGrantTests.tokens(from: try await Self.redeem(api, code: code))
            #expect(try await OAuthDeviceGrantTests.settingsStatus(api, tokens.access) == .ok)
            let info = try await api.send(.get, "/apps/checks/oauth/userinfo", token: tokens.access)
            #expect(try info.decode(Components.Schemas.UserInfo.self).sub == "alice")

            // Presented again, the code gives nothing and ends what it gave.
            let replay = try await Self.redeem(api, code: code)
            #expect(try OAuthDeviceGrantTests.error(of: replay) == "invalid_grant")
            #expect(try await OAuthDeviceGrantTests.settingsStatus(api, tokens.access) == .unauthorized)
            let refresh = try await OAuthDeviceGrantTests.refresh(api, tokens.refresh)
            #expect(try OAuthDeviceGrantTests.error(of: refresh) == "invalid_grant")

            // A private-use scheme is matched exactly, and gets the code the same way.
            let custom = try await Self.signIn(api, Self.request(redirect: Self.custom, state: "s2"))
            let back = try Self.redirected(custom)
            #expect(back.target == Self.custom && back.fields["state"] == "s2" && back.fields["code"] != nil)
        }
    }

    @Test("a wrong verifier, redirect URI or client, an expired code, a denial: nothing is issued")
    func refusedRedemptions() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            try await Self.setUp(api)
            func code() async throws -> String {
                try #require(try Self.redirected(try await Self.signIn(api, Self.request())).fields["code"])
            }
            let wrongVerifier = try await Self.redeem(
                api,
                code: try await code(),
                verifier: String(repeating: "a", count: 43)
            )
            #expect(try OAuthDeviceGrantTests.error(of: wrongVerifier) == "invalid_grant")
            let short = try await Self.redeem(api, code: try await code(), verifier: "too-short")
            #expect(try OAuthDeviceGrantTests.error(of: short) == "invalid_request")
            let otherRedirect = try await Self.redeem(api, code: try await code(), redirect: Self.custom)
            #expect(try OAuthDeviceGrantTests.error(of: otherRedirect) == "invalid_grant")
            let missing = try await OAuthDeviceGrantTests.form(
                api,
                "/apps/checks/oauth/token",
                [("grant_type", "authorization_code"), ("code", try await code()), ("client_id", "checks")]
            )
            #expect(try OAuthDeviceGrantTests.error(of: missing) == "invalid_request")
            #expect(
                try OAuthDeviceGrantTests.error(of: try await Self.redeem(api, code: "gw_unknown")) == "invalid_grant"
            )

            let late = try await code()
            fixture.clock.advance(by: .seconds(61))
            #expect(try OAuthDeviceGrantTests.error(of: try await Self.redeem(api, code: late)) == "invalid_grant")

            // A wrong password stays on the page, with the request kept; no redirect.
            let wrong = try await Self.signIn(api, Self.request(), password: "guess")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains(#"name="state" value="af0ifjsldkj""#))
            #expect(wrong.headers[.location] == nil)
            // Denied: back to the app with access_denied and its state.
            let denied = try Self.redirected(try await Self.signIn(api, Self.request(), decision: "deny"))
            #expect(denied.fields["error"] == "access_denied" && denied.fields["state"] == "af0ifjsldkj")
            #expect(denied.fields["code"] == nil)
        }
    }

    @Test(
        "bad requests: a wrong client or redirect URI is said on the page; anything else goes back with the RFC's error"
    )
    func badRequests() async throws {
        try await ServerFixture().runSeeded { api in
            // A basic app has no sign-in page.
            #expect(
                try await api.send(.get, "/apps/checks/oauth/authorize?" + Self.query(Self.request())).status
                    == .notFound
            )
            try await Self.setUp(api)
            // A form sent from a good page of this browser, with the request's fields changed.
            let browser = PageBrowser(api.running)
            let good = try await browser.get("/apps/checks/oauth/authorize?" + Self.query(Self.request()))
            let token = PageBrowser.hiddenFields(of: good.text).filter { $0.0 == "form_token" }
            #expect(token.count == 1)
            for (replacing, text) in [
                (["client_id": "other"], "names no app of this server"),
                (["client_id": nil], "names no app of this server"),
                (["redirect_uri": "http://127.0.0.1:51234/elsewhere"], "does not say where to return"),
                (["redirect_uri": "https://evil.example/callback"], "does not say where to return"),
                (["redirect_uri": "http://localhost/callback"], "does not say where to return"),
                (["redirect_uri": "com.airline.checks:/oauth2redirect#x"], "does not say where to return"),
                (["redirect_uri": nil], "does not say where to return"),
            ] as [([String: String?], String)] {
                let fields = Self.request(replacing: replacing)
                let page = try await api.send(.get, "/apps/checks/oauth/authorize?" + Self.query(fields))
                #expect(page.status == .badRequest, "\(replacing)")
                #expect(page.text.contains(text), "\(replacing)")
                #expect(page.headers[.location] == nil)
                let posted = try await browser.post(
                    "/apps/checks/oauth/authorize",
                    token + fields + [("username", "alice"), ("password", "alice-password"), ("decision", "approve")]
                )
                #expect(posted.status == .badRequest && posted.headers[.location] == nil, "\(replacing)")
                #expect(posted.text.contains(text), "\(replacing)")
            }
            for (replacing, error) in [
                (["code_challenge": nil], "invalid_request"),
                (["code_challenge_method": "plain"], "invalid_request"),
                (["code_challenge_method": nil], "invalid_request"),
                (["code_challenge": "short"], "invalid_request"),
                (["response_type": "token"], "unsupported_response_type"),
                (["device_id": "bad id"], "invalid_request"),
            ] as [([String: String?], String)] {
                let page = try await api.send(
                    .get,
                    "/apps/checks/oauth/authorize?" + Self.query(Self.request(replacing: replacing))
                )
                let (target, fields) = try Self.redirected(page)
                #expect(target == "http://127.0.0.1:51234/callback")
                #expect(fields["error"] == error, "\(replacing)")
                #expect(fields["state"] == "af0ifjsldkj")
                #expect(fields["code"] == nil)
            }
            // A state past the rule is refused and not sent back.
            for state in [String(repeating: "s", count: 513), "a\nb"] {
                let page = try await api.send(
                    .get,
                    "/apps/checks/oauth/authorize?" + Self.query(Self.request(replacing: ["state": state]))
                )
                let (target, fields) = try Self.redirected(page)
                #expect(target == "http://127.0.0.1:51234/callback")
                #expect(fields["error"] == "invalid_request")
                #expect(fields["state"] == nil, "not echoed")
                #expect((page.headers[.location] ?? "").utf8.count < 512)
            }
        }
    }

    @Test("the redirect URI rule is the API document's; loopback ports aside, matching is exact")
    func redirectRule() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: try APIDocument.json()) as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        for schema in ["AppAuthentication", "AppAuthenticationChange"] {
            let object = try #require(schemas[schema] as? [String: Any])
            let properties = try #require(object["properties"] as? [String: Any])
            let uris = try #require(properties["redirectURIs"] as? [String: Any])
            let items = try #require(uris["items"] as? [String: Any])
            #expect(items["pattern"] as? String == RedirectURI.pattern)
        }
        for good in [
            Self.loopback, "http://127.0.0.1:8080/cb", "http://[::1]/cb", "com.airline.checks:/oauth2redirect",
            "com.airline.checks://callback/x", "https://checks.airline.example/app/callback",
            "http://127.0.0.1:1/cb", "http://127.0.0.1:65535/cb", "http://[::1]:9/cb", "https://checks.example:443/cb",
        ] {
            #expect(RedirectURI.isValid(good), "\(good)")
        }
        for bad in [
            "", "http://localhost/cb", "http://192.168.1.2/cb", "http://127.0.0.1", "checks:/cb",
            "com.airline.checks:/cb#f", "com.airline.checks:/cb?x=1", "https://u@checks.example/cb",
            "HTTP://127.0.0.1/cb", "https://checks.example/a b", "javascript:alert(1)",
            // A port no app can listen on.
            "http://127.0.0.1:0/cb", "http://127.0.0.1:99999/cb", "http://127.0.0.1:65536/cb", "http://[::1]:00/cb",
            "http://127.0.0.1:08080/cb", "https://checks.example:0/cb", "https://checks.example:70000/cb",
        ] {
            #expect(!RedirectURI.isValid(bad), "\(bad)")
        }
        #expect(RedirectURI.matches(registered: Self.loopback, presented: "http://127.0.0.1:49152/callback"))
        #expect(RedirectURI.matches(registered: Self.loopback, presented: Self.loopback))
        #expect(!RedirectURI.matches(registered: Self.loopback, presented: "http://127.0.0.1:0/callback"))
        #expect(!RedirectURI.matches(registered: Self.loopback, presented: "http://127.0.0.1:99999/callback"))
        for issuer in ["http://127.0.0.1:0", "https://id.example:99999", "https://id.example:65536/realm"] {
            #expect(!IssuerURL.isValid(issuer), "\(issuer)")
        }
        #expect(IssuerURL.isValid("https://id.example:8443/realm"))
        #expect(!RedirectURI.matches(registered: Self.loopback, presented: "http://127.0.0.1:49152/callback/x"))
        #expect(!RedirectURI.matches(registered: Self.loopback, presented: "http://[::1]:49152/callback"))
        #expect(!RedirectURI.matches(registered: Self.custom, presented: "com.airline.checks:/oauth2redirect/"))
        #expect(
            !RedirectURI.matches(
                registered: "https://checks.example/cb",
                presented: "https://checks.example:8443/cb"
            ),
            "only a loopback address's port may differ"
        )
    }

    @Test("the admin's redirect URIs: shown, checked, at most ten, each once")
    func adminRedirectURIs() async throws {
        try await ServerFixture().runSeeded { api in
            try await Self.setUp(api)
            let shown = try await api.admin(.get, "/admin/apps/checks/authentication")
            let authentication = try shown.decode(Components.Schemas.AppAuthentication.self)
            #expect(authentication.redirectURIs == [Self.loopback, Self.custom])
            for body in [
                #"{"type": "oauth2", "redirectURIs": ["http://localhost/cb"]}"#,
                #"{"type": "oauth2", "redirectURIs": ["\#(Self.custom)", "\#(Self.custom)"]}"#,
                #"{"type": "oauth2", "redirectURIs": [\#((0..<11).map { "\"http://127.0.0.1/cb\($0)\"" }.joined(separator: ","))]}"#,
            ] {
                let refused = try await api.admin(.put, "/admin/apps/checks/authentication", json: body)
                #expect(refused.status == .badRequest, "\(body)")
            }
            let kept = try await api.admin(.get, "/admin/apps/checks/authentication")
            #expect(try kept.decode(Components.Schemas.AppAuthentication.self).redirectURIs.count == 2)
        }
    }
}

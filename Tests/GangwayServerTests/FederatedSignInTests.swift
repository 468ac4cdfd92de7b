import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

/// Signing in through an app's OpenID Connect provider, against a real provider on
/// loopback (`oidc-provider-mock`, see ``TestIdentityProvider``): the server as its
/// relying party, the subject mapped to a user, the ID token's checks, refresh through
/// the provider, key rotation.
@Suite(
    "Federation: an app's people sign in at its OpenID Connect provider",
    .servingTurn,
    .enabled(if: TestIdentityProvider.isInstalled, "needs oidc-provider-mock in .build-oidc/venv (see .ci/run)"),
    .tags(.postgres, .slow),
    .skipsTags
)
struct FederatedSignInTests {
    static let clientID = "gangway-checks"
    typealias Code = OAuthAuthorizationCodeTests

    /// The app signs people in at `provider`, as client `clientID` with a secret.
    static func setUp(_ api: API, _ provider: TestIdentityProvider, createsUsers: Bool = true) async throws {
        let body = """
            {"type": "oauth2", "redirectURIs": ["\(Code.loopback)"],
             "provider": {"issuer": "\(provider.issuer)", "clientID": "\(clientID)",
                          "clientSecret": "provider-secret-1", "createsUsers": \(createsUsers)}}
            """
        try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/authentication", json: body), .ok)
    }

    /// Where the server sent the browser, and the cookie it set there.
    struct Departure {
        var location: String
        var cookie: String
    }

    /// The browser goes to the app's sign-in page and on to the provider.
    static func depart(_ api: API, _ fields: [(String, String)] = Code.request()) async throws -> Departure {
        let reply = try await api.send(.get, "/apps/checks/oauth/authorize?" + Code.query(fields))
        try api.expectStatus(reply, .seeOther)
        let location = try #require(reply.headers[.location])
        let setCookie = try #require(reply.headers[.setCookie])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
        #expect(setCookie.contains("Path=/apps/checks/oauth/callback"))
        return Departure(location: location, cookie: String(setCookie.prefix { $0 != ";" }))
    }

    /// The browser comes back from the provider to the server, with its cookie.
    /// The provider as the server's pages name it: its issuer without the scheme.
    static func shown(_ provider: TestIdentityProvider) -> String {
        String(provider.issuer.drop { $0 != ":" }.dropFirst(3))
    }

    static func arrive(_ api: API, _ back: String, cookie: String?) async throws -> API.Reply {
        let url = try #require(URLComponents(string: back))
        #expect(url.path == "/apps/checks/oauth/callback")
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        return try await api.send(.get, url.path + "?" + (url.percentEncodedQuery ?? ""), headers: headers)
    }

    /// The consent form of a page, sent with the browser's sign-in cookie `cookie` and the
    /// anti-forgery cookie the page set.
    static func consent(
        _ api: API,
        _ page: API.Reply,
        cookie: String?,
        decision: String = "approve"
    ) async throws -> API.Reply {
        let token = try #require(page.text.firstMatch(of: /name="consent" value="([A-Za-z0-9_-]+)"/)?.output.1)
        let formToken = try #require(PageBrowser.hiddenFields(of: page.text).first { $0.0 == "form_token" }?.1)
        let formCookie = page.headers[values: .setCookie].first { $0.hasPrefix("gangway_form=") }
            .map { String($0.prefix { $0 != ";" }) }
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        let cookies = [cookie, formCookie].compactMap { $0 }
        if !cookies.isEmpty { headers[.cookie] = cookies.joined(separator: "; ") }
        return try await api.send(
            .post,
            "/apps/checks/oauth/callback",
            json: Code.query([("consent", String(token)), ("form_token", formToken), ("decision", decision)]),
            headers: headers
        )
    }

    /// A whole sign-in of `subject`, to where the server sends the browser in the end:
    /// through the consent page when the server shows it.
    static func signIn(
        _ api: API,
        _ provider: TestIdentityProvider,
        subject: String
    ) async throws -> (target: String, fields: [String: String]) {
        let departure = try await depart(api)
        let back = try await provider.signIn(at: departure.location, subject: subject)
        let arrival = try await arrive(api, back, cookie: departure.cookie)
        guard arrival.status == .ok else { return try Code.redirected(arrival) }
        return try Code.redirected(try await consent(api, arrival, cookie: departure.cookie))
    }

    static func tokens(_ api: API, _ provider: TestIdentityProvider, subject: String) async throws -> API.Reply {
        let (target, fields) = try await signIn(api, provider, subject: subject)
        #expect(target == "http://127.0.0.1:51234/callback")
        #expect(fields["state"] == "af0ifjsldkj")
        return try await Code.redeem(api, code: try #require(fields["code"], "\(fields)"))
    }

    static func userInfo(_ api: API, _ access: String) async throws -> Components.Schemas.UserInfo {
        try await api.send(.get, "/apps/checks/oauth/userinfo", token: access).decode(
            Components.Schemas.UserInfo.self
        )
    }

    static func withProvider(
        backend: Backend = .sqlite,
        tokenLifetime: Int = 3600,
        omitsKeyIDs: Bool = false,
        tracer: ServerTracer = .none,
        _ body: (ServerFixture, API, TestIdentityProvider) async throws -> Void
    ) async throws {
        try await TestIdentityProvider.using(tokenLifetime: tokenLifetime, omitsKeyIDs: omitsKeyIDs) { provider in
            let fixture = try await ServerFixture(over: .loopback, backend: backend, tracer: tracer)
            try await fixture.runSeeded { api in try await body(fixture, api, provider) }
        }
    }

    @Test(
        "the provider's claims set the attributes the app names at each sign-in, and so each person's part of a set",
        arguments: Backend.available
    )
    func attributesFromClaims(backend: Backend) async throws {
        try await Self.withProvider(backend: backend) { fixture, api, provider in
            let body = """
                {"type": "oauth2", "redirectURIs": ["\(Code.loopback)"],
                 "provider": {"issuer": "\(provider.issuer)", "clientID": "\(Self.clientID)",
                              "clientSecret": "provider-secret-1", "createsUsers": true,
                              "attributeClaims": {"stands": "stand_codes", "teams": "team"}}}
                """
            let set = try await api.admin(.put, "/admin/apps/checks/authentication", json: body)
            try api.expectStatus(set, .ok)
            let shown = try set.decode(Components.Schemas.AppAuthentication.self)
            #expect(
                shown.provider?.attributeClaims?.additionalProperties == ["stands": "stand_codes", "teams": "team"]
            )
            let schema = try await api.admin(
                .put,
                "/admin/apps/checks/schemas/checks",
                json: EntitySubsetAPITests.schema
            )
            try api.expectStatus(schema, .ok)
            for (id, stand) in [("a", "12"), ("b", "14"), ("c", "16")] {
                try await EntitySubsetAPITests.put(api, id, stand: stand)
            }
            /// Signs carol in at the provider with `claims`: her attributes then, and a token.
            func signIn(
                _ claims: [String: any Sendable]
            ) async throws -> (attributes: [String: [String]], token: String) {
                try await provider.setClaims(claims, of: "idp-carol")
                let tokens = try OAuthDeviceGrantTests.tokens(
                    from: try await Self.tokens(api, provider, subject: "idp-carol")
                )
                let user = try await api.admin(.get, "/admin/users/carol").decode(Components.Schemas.User.self)
                return (user.attributes?.additionalProperties ?? [:], tokens.access)
            }
            // The first sign-in: a user, with the attributes of the claims.
            let first = try await signIn(["preferred_username": "carol", "stand_codes": ["12"], "team": "ramp"])
            #expect(first.attributes == ["stands": ["12"], "teams": ["ramp"]])
            _ = try await api.register(token: first.token, device: "tablet-7")
            #expect(try await EntitySubsetAPITests.sync(api, first.token, from: nil).seen == ["+a"])

            // An attribute no claim sets stays as the admin set it; a claim gone takes its
            // attribute with it; a value the API would refuse is left out.
            let zones = try await EntitySubsetAPITests.attributes(
                api,
                "carol",
                #"{"stands": ["12"], "teams": ["ramp"], "zones": ["north"]}"#
            )
            try api.expectStatus(zones, .ok)
            let again = try await signIn(["preferred_username": "carol", "stand_codes": ["14", "16", "bad\u{1}"]])
            #expect(again.attributes == ["stands": ["14", "16"], "zones": ["north"]])
            #expect(try await EntitySubsetAPITests.sync(api, again.token, from: nil).seen == ["+b", "+c"])

            // A user holds at most 16 attributes, the admin's first: claims add none past it.
            let sixteen = (1...16).map { "\"a\($0)\": [\"x\"]" }.joined(separator: ", ")
            try api.expectStatus(try await EntitySubsetAPITests.attributes(api, "carol", "{\(sixteen)}"), .ok)
            let full = try await signIn(["preferred_username": "carol", "stand_codes": ["12"], "team": "ramp"])
            #expect(full.attributes.count == 16 && full.attributes["stands"] == nil && full.attributes["a1"] == ["x"])
            let events = try await OperatorsTests.audit(api)
            #expect(
                events.contains {
                    $0.action == "setAppAuthentication" && ($0.detail ?? "").contains("stands from stand_codes")
                }
            )
        }
    }

    @Test("attribute claims are bounded as the document says, and refused with a sentence")
    func attributeClaimsBounds() async throws {
        try await ServerFixture().runSeeded { api in
            let many = (1...17).map { "\"a\($0)\": \"c\($0)\"" }.joined(separator: ", ")
            for claims in [
                #"{"1x": "c"}"#, #"{"a": ""}"#, "{\(many)}", #"{"a": "\#(String(repeating: "c", count: 65))"}"#,
            ] {
                let body = """
                    {"type": "oauth2", "provider": {"issuer": "https://idp.example", "clientID": "c",
                     "attributeClaims": \(claims)}}
                    """
                let reply = try await api.admin(.put, "/admin/apps/checks/authentication", json: body)
                #expect(reply.status == .badRequest, "\(claims): \(reply.text)")
            }
            let shown = try await api.admin(.get, "/admin/apps/checks/authentication")
            #expect(!shown.text.contains("attributeClaims"), "nothing was set")
        }
    }

    @Test(
        "a provider's person named as an existing user: told apart by provider and user name, the namesake shown"
    )
    func lookAlike() async throws {
        try await Self.withProvider { fixture, api, provider in
            try await Self.setUp(api, provider)
            try api.expectStatus(
                try await api.admin(.patch, "/admin/users/alice", json: #"{"displayName": "Alice Martin"}"#),
                .ok
            )
            let departure = try await Self.depart(api)
            try await provider.setClaims(["preferred_username": "alice", "name": "Alice Martin"], of: "idp-alice-x")
            let back = try await provider.signIn(at: departure.location, subject: "idp-alice-x")
            let arrival = try await Self.arrive(api, back, cookie: departure.cookie)
            try api.expectStatus(arrival, .ok)
            // Not alice: the page names the provider and the user name the person got.
            #expect(
                arrival.text.contains(
                    "You are signed in at \(Self.shown(provider)) as <strong>Alice Martin</strong>, user name "
                        + "<strong>alice-2</strong>"
                ),
                "\(arrival.text)"
            )

            // The console: who signs in how, and who may be taken for whom.
            let staff = try await ConsoleAppsTests.browser(api, fixture, "ops.ola", role: .operator)
            let list = try await staff.get("/console/users?q=martin")
            try list.expect(.ok)
            #expect(list.text.contains(#">alice</a></td><td data-label="Name">Alice Martin<br>"#), "\(list.text)")
            #expect(list.text.contains(#"Same name as <a href="/console/users/alice-2">alice-2</a>"#))
            #expect(list.text.contains(#"Same name as <a href="/console/users/alice">alice</a>"#))
            #expect(
                list.text.contains(#"<td data-label="Signs in">\#(Self.shown(provider))</td>"#),
                "alice-2 signs in at the provider"
            )
            #expect(list.text.contains(#"<td data-label="Signs in">password</td>"#), "alice signs in with her password")
            // The search finds by any part of the user name or the name, in any case.
            // As a browser sends its search form: a space as `+`.
            let byName = try await staff.get("/console/users?q=LICE+MAR")
            #expect(byName.text.contains(">alice</a>") && byName.text.contains(">alice-2</a>"))
            let none = try await staff.get("/console/users?q=nobody-here")
            #expect(none.text.contains("No user's user name or name holds"))

            // Resolved by a new name: no namesake any more.
            try api.expectStatus(
                try await api.admin(.patch, "/admin/users/alice-2", json: #"{"displayName": "Alice Martin (crew)"}"#),
                .ok
            )
            let after = try await staff.get("/console/users?q=martin")
            #expect(!after.text.contains("Same name as"), "\(after.text)")
        }
    }

    @Test(
        "a person the provider signs in the first time gets a user, named from its claims, and the same one after",
        arguments: Backend.available
    )
    func firstSignIn(backend: Backend) async throws {
        try await Self.withProvider(backend: backend) { fixture, api, provider in
            try await Self.setUp(api, provider)
            let page = try await api.send(.get, "/admin/apps/checks/authentication", token: fixture.adminToken)
            let shown = try page.decode(Components.Schemas.AppAuthentication.self)
            #expect(shown.provider?.redirectURI?.hasSuffix("/apps/checks/oauth/callback") == true)
            #expect(!page.text.contains("provider-secret-1"))

            let departure = try await Self.depart(api)
            let out = try #require(URLComponents(string: departure.location))
            #expect(departure.location.hasPrefix(provider.issuer + "/oauth2/authorize?"))
            let asked = Dictionary(uniqueKeysWithValues: (out.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(asked["client_id"] == Self.clientID && asked["code_challenge_method"] == "S256")
            #expect(asked["scope"] == "openid profile email" && asked["nonce"]?.count == 43)
            #expect(asked["state"]?.count == 43 && asked["state"] != "af0ifjsldkj", "the server's own state")

            try await provider.setClaims(
                ["preferred_username": "Carol.Diaz", "name": "Carol Diaz", "email": "carol@airline.example"],
                of: "idp-carol-1"
            )
            let back = try await provider.signIn(at: departure.location, subject: "idp-carol-1")
            // Back from the provider: the person lets the app in, or not.
            let arrival = try await Self.arrive(api, back, cookie: departure.cookie)
            try api.expectStatus(arrival, .ok)
            #expect(
                arrival.text.contains(
                    "You are signed in at \(Self.shown(provider)) as <strong>Carol Diaz</strong>, user name "
                        + "<strong>carol.diaz</strong>"
                ),
                "\(arrival.text)"
            )
            #expect(arrival.text.contains("Let the Ground checks app on your device use your account?"))
            #expect(!arrival.text.contains("<script"))
            #expect(arrival.headers[.contentSecurityPolicy]?.contains("form-action 'self' http://127.0.0.1:*") == true)
            let allowed = try await Self.consent(api, arrival, cookie: departure.cookie)
            #expect(allowed.headers[.setCookie]?.contains("gangway_sign_in=; ") == true, "the cookie is dropped")
            #expect(allowed.headers[.setCookie]?.contains("Max-Age=0") == true)
            let (_, fields) = try Code.redirected(allowed)
            let tokens = try OAuthDeviceGrantTests.tokens(
                from: try await Code.redeem(api, code: try #require(fields["code"]))
            )
            let info = try await Self.userInfo(api, tokens.access)
            #expect(info.sub == "carol.diaz" && info.name == "Carol Diaz")
            #expect(try await OAuthDeviceGrantTests.settingsStatus(api, tokens.access) == .ok)

            let links = try await api.admin(.get, "/admin/users/carol.diaz/identities")
            let linked = try links.decode([Components.Schemas.IdentityLink].self)
            #expect(linked.map(\.subject) == ["idp-carol-1"] && linked.first?.issuer == provider.issuer)

            // The same person again: the same user, not a second one.
            let again = try OAuthDeviceGrantTests.tokens(
                from: try await Self.tokens(api, provider, subject: "idp-carol-1")
            )
            #expect(try await Self.userInfo(api, again.access).sub == "carol.diaz")
            let users = try await api.admin(.get, "/admin/users").decode([Components.Schemas.User].self)
            #expect(users.filter { $0.username.hasPrefix("carol") }.count == 1)
        }
    }

    @Test("an unlinked subject gets no user when the provider creates none; the admin's link makes them that user")
    func linking() async throws {
        try await Self.withProvider { fixture, api, provider in
            try await Self.setUp(api, provider, createsUsers: false)
            let (_, refused) = try await Self.signIn(api, provider, subject: "idp-alice")
            #expect(refused["error"] == "access_denied" && refused["code"] == nil)
            #expect(refused["error_description"]?.contains("subject idp-alice") == true)
            #expect(refused["state"] == "af0ifjsldkj")

            let link = #"{"issuer": "\#(provider.issuer)", "subject": "idp-alice"}"#
            try api.expectStatus(try await api.admin(.post, "/admin/users/alice/identities", json: link), .created)
            let taken = try await api.admin(.post, "/admin/users/bob/identities", json: link)
            try api.expectStatus(taken, .conflict)
            #expect(taken.text.contains("IDENTITY_LINKED"))
            let badIssuer = try await api.admin(
                .post,
                "/admin/users/bob/identities",
                json: #"{"issuer": "http://evil.example", "subject": "x"}"#
            )
            try api.expectStatus(badIssuer, .badRequest)

            let tokens = try OAuthDeviceGrantTests.tokens(
                from: try await Self.tokens(api, provider, subject: "idp-alice")
            )
            #expect(try await Self.userInfo(api, tokens.access).sub == "alice")

            // Blocked here, the person is refused whatever the provider says.
            try api.expectStatus(try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": true}"#), .ok)
            let (_, blocked) = try await Self.signIn(api, provider, subject: "idp-alice")
            #expect(blocked["error"] == "access_denied" && blocked["error_description"]?.contains("blocked") == true)
            try api.expectStatus(try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": false}"#), .ok)

            let query = Code.query([("issuer", provider.issuer), ("subject", "idp-alice")])
            try api.expectStatus(try await api.admin(.delete, "/admin/users/alice/identities?" + query), .noContent)
            try api.expectStatus(try await api.admin(.delete, "/admin/users/alice/identities?" + query), .notFound)
            let (_, unlinked) = try await Self.signIn(api, provider, subject: "idp-alice")
            #expect(unlinked["error"] == "access_denied")
            #expect(!fixture.logs.text.contains("provider-secret-1"))
        }
    }

    enum Spoiled: String, CaseIterable, Sendable {
        case audience, nonce, issuer, expired, unpublishedKey, unsigned, hmacWithPublicKey

        var spoil: TestIdentityProvider.Spoil {
            switch self {
            case .audience: .claims(["aud": "someone-else"])
            case .nonce: .claims(["nonce": "another-sign-in"])
            case .issuer: .claims(["iss": "http://127.0.0.1:1"])
            case .expired: .claims(["exp": 1_000_000])
            case .unpublishedKey: .unpublishedKey
            case .unsigned: .unsigned
            case .hmacWithPublicKey: .hmacWithPublicKey
            }
        }

        /// What the server's log says.
        var reason: String {
            switch self {
            case .audience: "another client"
            case .nonce: "nonce"
            case .issuer: "another provider"
            case .expired: "expired"
            case .unpublishedKey: "does not publish"
            case .unsigned: "algorithm none is not taken"
            case .hmacWithPublicKey: "algorithm HS256 is not taken"
            }
        }
    }

    @Test(
        "an ID token for another client, sign-in or provider, expired, unsigned, HMAC-signed or by an unknown key: refused"
    )
    func spoiledIDTokens() async throws {
        try await Self.withProvider { fixture, api, provider in
            try await Self.setUp(api, provider)
            for spoiled in Spoiled.allCases {
                try await provider.spoilNextIDToken(spoiled.spoil)
                let (target, fields) = try await Self.signIn(api, provider, subject: "idp-mallory")
                #expect(target == "http://127.0.0.1:51234/callback")
                #expect(fields["error"] == "server_error" && fields["code"] == nil, "\(spoiled)")
                #expect(fixture.logs.text.contains(spoiled.reason), "\(spoiled)")
            }
            let users = try await api.admin(.get, "/admin/users").decode([Components.Schemas.User].self)
            #expect(!users.contains { $0.username.contains("mallory") })
            // The provider's next good token still works: nothing was left half done.
            try api.expectStatus(try await Self.tokens(api, provider, subject: "idp-mallory"), .ok)
        }
    }

    @Test("the provider's new signing key is fetched when a token names it, without a restart")
    func keyRotation() async throws {
        try await Self.withProvider { _, api, provider in
            try await Self.setUp(api, provider)
            try api.expectStatus(try await Self.tokens(api, provider, subject: "idp-dave"), .ok)
            try await provider.rotateKey()
            let tokens = try OAuthDeviceGrantTests.tokens(
                from: try await Self.tokens(api, provider, subject: "idp-dave")
            )
            #expect(try await Self.userInfo(api, tokens.access).sub == "idp-dave")
        }
    }

    @Test(
        "a provider that names no key (kid): its token is taken when one published key of its kind can verify it, never when two could"
    )
    func tokensWithoutKeyIDs() async throws {
        try await Self.withProvider(omitsKeyIDs: true) { fixture, api, provider in
            try await Self.setUp(api, provider)
            let first = try OAuthDeviceGrantTests.tokens(from: try await Self.tokens(api, provider, subject: "idp-kim"))
            #expect(try await Self.userInfo(api, first.access).sub == "idp-kim")

            // Two RSA keys published, neither named: which one signed is anyone's guess.
            try await provider.rotateKey(keepingOld: true)
            let (_, ambiguous) = try await Self.signIn(api, provider, subject: "idp-kim")
            #expect(ambiguous["error"] == "server_error" && ambiguous["code"] == nil)
            #expect(fixture.logs.text.contains("the ID token names no key, and the provider publishes 2"))

            // An EC key beside them: the only one of its kind, so an ES256 token is taken.
            try await provider.rotateKey(keepingOld: true, algorithm: "ES256")
            let again = try OAuthDeviceGrantTests.tokens(from: try await Self.tokens(api, provider, subject: "idp-kim"))
            #expect(try await Self.userInfo(api, again.access).sub == "idp-kim")
        }
    }

    @Test(
        "each refresh asks the provider; once it ends the person's tokens, the refresh is refused and the session ends"
    )
    func refreshThroughProvider() async throws {
        try await Self.withProvider(tokenLifetime: 120) { fixture, api, provider in
            try await Self.setUp(api, provider)
            let first = try await Self.tokens(api, provider, subject: "idp-erin")
            let body = try first.decode(Components.Schemas.TokenResponse.self)
            #expect(body.expiresIn <= 120, "no longer than the provider's access token")
            var tokens = try OAuthDeviceGrantTests.tokens(from: first)

            tokens = try OAuthDeviceGrantTests.tokens(
                from: try await OAuthDeviceGrantTests.refresh(api, tokens.refresh)
            )
            #expect(try await OAuthDeviceGrantTests.settingsStatus(api, tokens.access) == .ok)

            try await provider.revokeTokens(of: "idp-erin")
            let refused = try await OAuthDeviceGrantTests.refresh(api, tokens.refresh)
            try api.expectStatus(refused, .badRequest)
            #expect(try OAuthDeviceGrantTests.error(of: refused) == "invalid_grant")
            #expect(try await OAuthDeviceGrantTests.settingsStatus(api, tokens.access) == .unauthorized)
            #expect(fixture.logs.text.contains("identity provider ended a sign-in"))
            // Signing in again at the provider works.
            try api.expectStatus(try await Self.tokens(api, provider, subject: "idp-erin"), .ok)
        }
    }

    @Test("a client that refreshes twice at once keeps its sign-in, though the provider's refresh tokens rotate")
    func twoRefreshesAtOnceThroughProvider() async throws {
        try await Self.withProvider(tokenLifetime: 120) { _, api, provider in
            try await Self.setUp(api, provider)
            let first = try OAuthDeviceGrantTests.tokens(from: try await Self.tokens(api, provider, subject: "idp-gil"))
            let replies = try await api.parallelForms(
                count: 4,
                "/apps/checks/oauth/token",
                [("grant_type", "refresh_token"), ("refresh_token", first.refresh), ("client_id", "checks")]
            )
            #expect(replies.allSatisfy { $0.status == .ok }, "\(replies.map(\.text))")
            for reply in replies where reply.status == .ok {
                let issued = try OAuthDeviceGrantTests.tokens(from: reply)
                #expect(try await OAuthDeviceGrantTests.settingsStatus(api, issued.access) == .ok)
            }
            // The sign-in lives on: a token of the family refreshes at the provider again.
            let last = try OAuthDeviceGrantTests.tokens(from: try #require(replies.last { $0.status == .ok }))
            try api.expectStatus(try await OAuthDeviceGrantTests.refresh(api, last.refresh), .ok)
        }
    }

    @Test("the sign-in is bound to the browser that started it, finished once, and checks the answer's issuer")
    func callbackChecks() async throws {
        try await Self.withProvider { _, api, provider in
            try await Self.setUp(api, provider)
            let departure = try await Self.depart(api)
            let back = try await provider.signIn(at: departure.location, subject: "idp-frank")
            let elsewhere = try await Self.arrive(api, back, cookie: "gangway_sign_in=another-browser")
            try api.expectStatus(elsewhere, .badRequest)
            #expect(elsewhere.text.contains("started in another browser"))
            // Refused once, the sign-in is spent: the right browser cannot finish it now.
            let spent = try await Self.arrive(api, back, cookie: departure.cookie)
            try api.expectStatus(spent, .badRequest)
            #expect(spent.text.contains("expired or was already finished"))

            let second = try await Self.depart(api)
            let answer = try await provider.signIn(at: second.location, subject: "idp-frank")
            let mixedUp = try await Self.arrive(api, answer + "&iss=http%3A%2F%2F127.0.0.1%3A1", cookie: second.cookie)
            #expect(try Code.redirected(mixedUp).fields["error"] == "server_error")

            let unknown = try await api.send(.get, "/apps/checks/oauth/callback?state=nothing&code=x")
            try api.expectStatus(unknown, .badRequest)
        }
    }

    @Test("the consent page: denied, the app gets access_denied; sent from another browser or twice, refused")
    func consentPage() async throws {
        try await Self.withProvider { _, api, provider in
            try await Self.setUp(api, provider)
            for decision in ["deny", "approve"] {
                let departure = try await Self.depart(api)
                let back = try await provider.signIn(at: departure.location, subject: "idp-henry")
                let page = try await Self.arrive(api, back, cookie: departure.cookie)
                try api.expectStatus(page, .ok)
                if decision == "deny" {
                    let denied = try await Self.consent(api, page, cookie: departure.cookie, decision: "deny")
                    let (target, fields) = try Code.redirected(denied)
                    #expect(target == "http://127.0.0.1:51234/callback")
                    #expect(fields["error"] == "access_denied" && fields["code"] == nil)
                    #expect(fields["state"] == "af0ifjsldkj")
                } else {
                    let elsewhere = try await Self.consent(api, page, cookie: "gangway_sign_in=another-browser")
                    try api.expectStatus(elsewhere, .badRequest)
                    #expect(elsewhere.text.contains("started in another browser"))
                    let spent = try await Self.consent(api, page, cookie: departure.cookie)
                    try api.expectStatus(spent, .badRequest)
                    #expect(spent.text.contains("expired or was already finished"))
                }
            }
        }
    }

    @Test("cancelling at the provider sends the app access_denied with its state")
    func cancelled() async throws {
        try await Self.withProvider { _, api, provider in
            try await Self.setUp(api, provider)
            let departure = try await Self.depart(api)
            let back = try await provider.deny(at: departure.location)
            let (target, fields) = try Code.redirected(try await Self.arrive(api, back, cookie: departure.cookie))
            #expect(target == "http://127.0.0.1:51234/callback")
            #expect(fields["error"] == "access_denied" && fields["state"] == "af0ifjsldkj")
        }
    }

    @Test("a provider that cannot be reached: the app is told temporarily_unavailable, and nothing is stored")
    func unreachable() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let body = """
                {"type": "oauth2", "redirectURIs": ["\(Code.loopback)"],
                 "provider": {"issuer": "http://127.0.0.1:1", "clientID": "\(Self.clientID)"}}
                """
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/authentication", json: body), .ok)
            let reply = try await api.send(.get, "/apps/checks/oauth/authorize?" + Code.query(Code.request()))
            let (target, fields) = try Code.redirected(reply)
            #expect(target == "http://127.0.0.1:51234/callback")
            #expect(fields["error"] == "temporarily_unavailable" && fields["state"] == "af0ifjsldkj")
            #expect(reply.headers[.setCookie] == nil)
        }
    }

    /// Where the provider sent the browser back to, as a path and query of this server.
    static func pathAndQuery(_ url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        return components.path + "?" + (components.percentEncodedQuery ?? "")
    }

    @Test(
        "a device code: signed in at the provider, then a consent page names the device and when it asked; no token before Allow"
    )
    func deviceGrant() async throws {
        try await Self.withProvider { _, api, provider in
            try await Self.setUp(api, provider)
            let codes = try await OAuthDeviceGrantTests.start(api)
            let browser = PageBrowser(api.running)
            let page = try await browser.get("/apps/checks/oauth/device?user_code=\(codes.userCode)")
            #expect(page.text.contains("company account") && !page.text.contains("type=\"password\""))
            #expect(page.text.contains("The device <strong>tablet-1</strong> asked to sign in to"), "\(page.text)")
            // Approve leads on to the provider: the page's policy lets the form go there.
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("form-action 'self' \(provider.issuer);"), "\(policy)")

            let out = try await browser.submit(page, to: "/apps/checks/oauth/device", [("decision", "approve")])
            try api.expectStatus(out, .seeOther)
            let back = try await provider.signIn(at: try #require(out.headers[.location]), subject: "idp-grace")
            // Back from the provider (which may answer without asking anything, for a person
            // with a session there): nothing is approved before the person says so here.
            let consent = try await browser.get(try Self.pathAndQuery(back))
            try api.expectStatus(consent, .ok)
            #expect(
                consent.text.contains("You are signed in at \(Self.shown(provider)) as <strong>idp-grace</strong>"),
                "\(consent.text)"
            )
            #expect(consent.text.contains("The device <strong>tablet-1</strong> asked to sign in to"))
            #expect(consent.text.contains("UTC (less than a minute ago)"))
            #expect(consent.text.contains("Let that device use your account?"))
            #expect(
                try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, codes))
                    == "authorization_pending"
            )
            let done = try await browser.submit(consent, to: "/apps/checks/oauth/callback", [("decision", "approve")])
            try api.expectStatus(done, .ok)
            #expect(done.text.contains("Your device is signed in as idp-grace"))

            let tokens = try OAuthDeviceGrantTests.tokens(from: try await OAuthDeviceGrantTests.poll(api, codes))
            #expect(try await Self.userInfo(api, tokens.access).sub == "idp-grace")

            // Deny needs no sign-in at the provider.
            let other = try await OAuthDeviceGrantTests.start(api, device: "tablet-2")
            let otherPage = try await browser.get("/apps/checks/oauth/device?user_code=\(other.userCode)")
            let denied = try await browser.submit(otherPage, to: "/apps/checks/oauth/device", [("decision", "deny")])
            try api.expectStatus(denied, .ok)
            #expect(
                try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, other)) == "access_denied"
            )

            // Denied on the consent page, after signing in at the provider.
            let third = try await OAuthDeviceGrantTests.start(api, device: "tablet-3")
            let thirdPage = try await browser.get("/apps/checks/oauth/device?user_code=\(third.userCode)")
            let away = try await browser.submit(thirdPage, to: "/apps/checks/oauth/device", [("decision", "approve")])
            let returned = try await provider.signIn(at: try #require(away.headers[.location]), subject: "idp-grace")
            let asked = try await browser.get(try Self.pathAndQuery(returned))
            let no = try await browser.submit(asked, to: "/apps/checks/oauth/callback", [("decision", "deny")])
            try api.expectStatus(no, .ok)
            #expect(no.text.contains("The request was denied"))
            #expect(
                try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, third)) == "access_denied"
            )
        }
    }

    @Test(
        "a form another site makes the browser send is refused: no trip to the provider, the device code stays pending"
    )
    func crossSiteDeviceApproval() async throws {
        try await Self.withProvider { fixture, api, provider in
            try await Self.setUp(api, provider)
            let codes = try await OAuthDeviceGrantTests.start(api)
            let browser = PageBrowser(api.running)
            let page = try await browser.get("/apps/checks/oauth/device?user_code=\(codes.userCode)")
            let forged: [(String, String)] = [("user_code", codes.userCode), ("decision", "approve")]
            // What a page elsewhere can make a browser send: no token, the browser's own cookies.
            let cases: [(HTTPFields, [(String, String)])] = [
                ([.origin: "http://evil.example"], forged),
                ([HTTPField.Name("Sec-Fetch-Site")!: "cross-site"], forged),
                ([HTTPField.Name("Sec-Fetch-Site")!: "same-site"], forged),
                ([.origin: "null"], forged),
                ([:], forged),
                ([:], forged + [("form_token", "not-the-token")]),
                // Even with this browser's token, a form from another origin is refused.
                ([.origin: "http://evil.example"], PageBrowser.hiddenFields(of: page.text) + [("decision", "approve")]),
            ]
            for (headers, fields) in cases {
                let reply = try await browser.post("/apps/checks/oauth/device", fields, headers: headers)
                #expect(reply.status == .forbidden, "\(headers)")
                #expect(reply.headers[.location] == nil, "\(headers)")
                #expect(reply.text.contains("nothing was done"), "\(headers)")
            }
            // Another browser's token does not pass with this browser's cookie.
            let stranger = PageBrowser(api.running)
            let theirs = try await stranger.get("/apps/checks/oauth/device?user_code=\(codes.userCode)")
            let swapped = try await browser.post(
                "/apps/checks/oauth/device",
                PageBrowser.hiddenFields(of: theirs.text) + [("decision", "approve")]
            )
            #expect(swapped.status == .forbidden)
            #expect(
                try OAuthDeviceGrantTests.error(of: try await OAuthDeviceGrantTests.poll(api, codes))
                    == "authorization_pending"
            )
            #expect(fixture.logs.text.contains("form refused"))
            // The page's own form, from the page's own origin, still goes on to the provider.
            let own = try await browser.submit(
                page,
                to: "/apps/checks/oauth/device",
                [("decision", "approve")],
                headers: [.origin: api.running.url.absoluteString, HTTPField.Name("Sec-Fetch-Site")!: "same-origin"]
            )
            try api.expectStatus(own, .seeOther)
        }
    }
}

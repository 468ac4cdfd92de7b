import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import Testing

/// The app's authorization server over HTTP: the device authorization grant (RFC 8628),
/// its verification page, rotating refresh tokens (RFC 9700) and revocation (RFC 7009).
@Suite(
    "OAuth 2.0: the device grant, its verification page, rotating refresh tokens, revocation",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct OAuthDeviceGrantTests {
    static let deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

    struct Codes {
        var deviceCode: String
        var userCode: String
    }

    struct Tokens {
        var access: String
        var refresh: String
    }

    /// A form request, as OAuth clients and browsers send one.
    static func form(_ api: API, _ path: String, _ fields: [(String, String)]) async throws -> API.Reply {
        try await api.running.sendForm(path, fields)
    }

    static func oauth2(_ api: API) async throws {
        try api.expectStatus(
            try await api.admin(.put, "/admin/apps/checks/authentication", json: #"{"type": "oauth2"}"#),
            .ok
        )
    }

    static func start(_ api: API, device: String = "tablet-1") async throws -> Codes {
        let reply = try await form(
            api,
            "/apps/checks/oauth/device_authorization",
            [("client_id", "checks"), ("device_id", device)]
        )
        try api.expectStatus(reply, .ok)
        #expect(reply.headers[.cacheControl] == "no-store")
        let body = try reply.decode(Components.Schemas.DeviceAuthorization.self)
        #expect(body.interval == 5 && body.expiresIn == 600)
        #expect(body.verificationUri.hasSuffix("/apps/checks/oauth/device"))
        #expect(body.verificationUriComplete == body.verificationUri + "?user_code=" + body.userCode)
        return Codes(deviceCode: body.deviceCode, userCode: body.userCode)
    }

    static func poll(_ api: API, _ codes: Codes) async throws -> API.Reply {
        try await form(
            api,
            "/apps/checks/oauth/token",
            [("grant_type", deviceGrant), ("device_code", codes.deviceCode), ("client_id", "checks")]
        )
    }

    /// A person opens the page with `userCode` (the link the device shows) and answers its
    /// form, in `browser` (a new one by default); the page that refuses the code, if it does.
    static func decide(
        _ api: API,
        _ userCode: String,
        username: String = "alice",
        password: String = "alice-password",
        approve: Bool = true,
        browser: PageBrowser? = nil
    ) async throws -> API.Reply {
        let browser = browser ?? PageBrowser(api.running)
        let page = try await browser.get(
            "/apps/checks/oauth/device?" + RunningTestServer.formBody([("user_code", userCode)])
        )
        guard page.status == .ok else { return page }
        return try await browser.submit(
            page,
            to: "/apps/checks/oauth/device",
            [("username", username), ("password", password), ("decision", approve ? "approve" : "deny")]
        )
    }

    static func error(of reply: API.Reply) throws -> String? {
        try reply.decode(Components.Schemas.OAuthError.self).error.rawValue
    }

    static func tokens(from reply: API.Reply) throws -> Tokens {
        let body = try reply.decode(Components.Schemas.TokenResponse.self)
        #expect(body.tokenType == .bearer)
        return Tokens(access: body.accessToken, refresh: body.refreshToken)
    }

    /// A device signed in through the grant, approved by alice.
    static func signedIn(_ api: API, device: String = "tablet-1") async throws -> Tokens {
        let codes = try await start(api, device: device)
        try api.expectStatus(try await decide(api, codes.userCode), .ok)
        let reply = try await poll(api, codes)
        try api.expectStatus(reply, .ok)
        return try tokens(from: reply)
    }

    static func refresh(_ api: API, _ token: String) async throws -> API.Reply {
        try await form(
            api,
            "/apps/checks/oauth/token",
            [("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "checks")]
        )
    }

    static func settingsStatus(_ api: API, _ token: String) async throws -> HTTPResponse.Status {
        try await api.send(.get, "/apps/checks/settings", token: token).status
    }

    @Test("pending, slow_down, approved on the page, the tokens once", arguments: Backend.available)
    func deviceGrant(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await Self.oauth2(api)
            let metadata = try await api.send(.get, "/.well-known/oauth-authorization-server/apps/checks")
            try api.expectStatus(metadata, .ok)
            let document = try metadata.decode(Components.Schemas.AuthorizationServerMetadata.self)
            #expect(document.issuer == "\(api.running.url.absoluteString)/apps/checks")
            #expect(document.grantTypesSupported == ["authorization_code", Self.deviceGrant, "refresh_token"])

            let codes = try await Self.start(api)
            #expect(codes.userCode.wholeMatch(of: /[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}/) != nil)
            let first = try await Self.poll(api, codes)
            #expect(first.status == .badRequest)
            #expect(try Self.error(of: first) == "authorization_pending")
            #expect(try Self.error(of: try await Self.poll(api, codes)) == "slow_down")
            // Each slow_down adds 5 seconds: 6 later is too soon for 10 (now 15); 16 is not.
            fixture.clock.advance(by: .seconds(6))
            #expect(try Self.error(of: try await Self.poll(api, codes)) == "slow_down")
            fixture.clock.advance(by: .seconds(16))
            #expect(try Self.error(of: try await Self.poll(api, codes)) == "authorization_pending")

            // The page shows the code it was given, with no script and no framing.
            let page = try await api.send(.get, "/apps/checks/oauth/device?user_code=\(codes.userCode)")
            try api.expectStatus(page, .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true)
            #expect(page.text.contains("value=\"\(codes.userCode)\""))
            #expect(!page.text.contains("<script"))

            // A wrong password approves nothing; the right one, with the code typed loosely, does.
            let wrong = try await Self.decide(api, codes.userCode, password: "wrong-password")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains("Wrong user name or password."))
            fixture.clock.advance(by: .seconds(16))
            #expect(try Self.error(of: try await Self.poll(api, codes)) == "authorization_pending")
            let loose = " " + codes.userCode.lowercased().replacingOccurrences(of: "-", with: "") + " "
            let approved = try await Self.decide(api, loose)
            try api.expectStatus(approved, .ok)
            #expect(approved.text.contains("Your device is signed in as Alice"))

            fixture.clock.advance(by: .seconds(16))
            let issued = try await Self.poll(api, codes)
            try api.expectStatus(issued, .ok)
            #expect(issued.headers[.cacheControl] == "no-store")
            let tokens = try Self.tokens(from: issued)
            #expect(try await Self.settingsStatus(api, tokens.access) == .ok)
            fixture.clock.advance(by: .seconds(11))
            #expect(try Self.error(of: try await Self.poll(api, codes)) == "invalid_grant")
            // The code is used: the page refuses it.
            #expect(try await Self.decide(api, codes.userCode).status == .badRequest)
            #expect(!fixture.logs.text.contains(codes.deviceCode) && !fixture.logs.text.contains(tokens.refresh))
        }
    }

    @Test("denied, and expired after ten minutes")
    func deniedAndExpired() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            try await Self.oauth2(api)
            let denied = try await Self.start(api)
            let page = try await Self.decide(api, denied.userCode, approve: false)
            try api.expectStatus(page, .ok)
            #expect(page.text.contains("The request was denied."))
            #expect(try Self.error(of: try await Self.poll(api, denied)) == "access_denied")

            let late = try await Self.start(api)
            fixture.clock.advance(by: .seconds(601))
            #expect(try Self.error(of: try await Self.poll(api, late)) == "expired_token")
            let expiredPage = try await Self.decide(api, late.userCode)
            #expect(expiredPage.status == .badRequest)
            #expect(expiredPage.text.contains("This code is not valid, or it expired."))
        }
    }

    @Test("a refresh token rotates; a spent one used again revokes its whole family", arguments: Backend.available)
    func refreshRotation(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend)
        try await fixture.runSeeded { api in
            try await Self.oauth2(api)
            let first = try await Self.signedIn(api)
            let rotated = try await Self.refresh(api, first.refresh)
            try api.expectStatus(rotated, .ok)
            let second = try Self.tokens(from: rotated)
            #expect(second.refresh != first.refresh && second.access != first.access)
            #expect(try await Self.settingsStatus(api, second.access) == .ok)

            // The first refresh token again, past the grace for a client's own second
            // refresh: someone kept a copy. The family ends.
            fixture.clock.advance(by: .seconds(11))
            let reused = try await Self.refresh(api, first.refresh)
            #expect(try Self.error(of: reused) == "invalid_grant")
            #expect(try await Self.settingsStatus(api, second.access) == .unauthorized)
            #expect(try await Self.settingsStatus(api, first.access) == .unauthorized)
            #expect(try Self.error(of: try await Self.refresh(api, second.refresh)) == "invalid_grant")

            // Another sign-in is another family, untouched.
            let other = try await Self.signedIn(api, device: "tablet-2")
            #expect(try await Self.refresh(api, other.refresh).status == .ok)
        }
    }

    @Test(
        "a client that refreshes twice at once keeps its session; another address, or 10 s later, ends the family"
    )
    func refreshTwiceAtOnce() async throws {
        let fixture = try await ServerFixture(over: .loopback) { configuration in
            configuration.trustedProxies = [try! #require(AddressRange("127.0.0.0/8"))]
        }
        try await fixture.runSeeded { api in
            try await Self.oauth2(api)
            func refresh(_ token: String, from address: String) async throws -> API.Reply {
                try await api.send(
                    .post,
                    "/apps/checks/oauth/token",
                    json: RunningTestServer.formBody([
                        ("grant_type", "refresh_token"), ("refresh_token", token), ("client_id", "checks"),
                    ]),
                    headers: [
                        .contentType: "application/x-www-form-urlencoded", HTTPField.Name("X-Forwarded-For")!: address,
                    ]
                )
            }
            // Two refreshes of one token, at once, in parallel, from the device's address.
            let first = try await Self.signedIn(api)
            async let one = refresh(first.refresh, from: "198.51.100.7")
            async let two = refresh(first.refresh, from: "198.51.100.7")
            let answers = try await [one, two]
            for answer in answers { try api.expectStatus(answer, .ok) }
            let tokens = try answers.map(Self.tokens(from:))
            #expect(Set(tokens.map(\.refresh)).count == 2 && Set(tokens.map(\.access)).count == 2)
            for issued in tokens { #expect(try await Self.settingsStatus(api, issued.access) == .ok) }
            // Within the grace, a third time from the same address is still its own.
            fixture.clock.advance(by: .seconds(9))
            let third = try await refresh(first.refresh, from: "198.51.100.7")
            try api.expectStatus(third, .ok)
            // Each token issued is spent once: the first child rotates on.
            let next = try await refresh(tokens[0].refresh, from: "198.51.100.7")
            try api.expectStatus(next, .ok)
            let current = try Self.tokens(from: next)

            // Within the grace, but from another address: a copy. The whole family ends,
            // every branch of it.
            let stolen = try await refresh(tokens[0].refresh, from: "203.0.113.9")
            #expect(try Self.error(of: stolen) == "invalid_grant")
            for ended in [current.access, tokens[1].access, try Self.tokens(from: third).access] {
                #expect(try await Self.settingsStatus(api, ended) == .unauthorized)
            }
            #expect(try Self.error(of: try await refresh(current.refresh, from: "198.51.100.7")) == "invalid_grant")

            // From the same address, but past the grace: a copy too.
            let later = try await Self.signedIn(api, device: "tablet-2")
            try api.expectStatus(try await refresh(later.refresh, from: "198.51.100.7"), .ok)
            fixture.clock.advance(by: .seconds(11))
            #expect(try Self.error(of: try await refresh(later.refresh, from: "198.51.100.7")) == "invalid_grant")
            #expect(!fixture.logs.text.contains(first.refresh) && !fixture.logs.text.contains(later.refresh))
        }
    }

    @Test(
        "revocation at logout, a block, an admin's revoke and a locked device end the tokens",
        arguments: Backend.available
    )
    func tokensEnd(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await Self.oauth2(api)
            func revoke(_ token: String) async throws -> API.Reply {
                try await Self.form(api, "/apps/checks/oauth/revoke", [("token", token), ("client_id", "checks")])
            }
            let loggedOut = try await Self.signedIn(api)
            try api.expectStatus(try await revoke(loggedOut.refresh), .ok)
            #expect(try await Self.settingsStatus(api, loggedOut.access) == .unauthorized)
            #expect(try Self.error(of: try await Self.refresh(api, loggedOut.refresh)) == "invalid_grant")
            // RFC 7009: a token the server does not know is answered 200 too.
            try api.expectStatus(try await revoke("gw_unknown"), .ok)

            let accessOnly = try await Self.signedIn(api)
            try api.expectStatus(try await revoke(accessOnly.access), .ok)
            #expect(try await Self.settingsStatus(api, accessOnly.access) == .unauthorized)

            let revoked = try await Self.signedIn(api)
            #expect(try await api.admin(.delete, "/admin/users/alice/sessions").status == .noContent)
            #expect(try await Self.settingsStatus(api, revoked.access) == .unauthorized)
            #expect(try Self.error(of: try await Self.refresh(api, revoked.refresh)) == "invalid_grant")

            let locked = try await Self.signedIn(api, device: "tablet-9")
            let registration = try await api.register(token: locked.access, device: "tablet-9")
            try api.expectStatus(
                try await api.admin(
                    .patch,
                    "/admin/apps/checks/devices/\(registration.registrationID)",
                    json: #"{"status": "locked"}"#
                ),
                .ok
            )
            #expect(try Self.error(of: try await Self.refresh(api, locked.refresh)) == "invalid_grant")
            // A new code approved on the locked device gets no tokens: the lock holds until
            // an admin lifts it.
            let lockedCodes = try await Self.start(api, device: "tablet-9")
            try api.expectStatus(try await Self.decide(api, lockedCodes.userCode), .ok)
            let refused = try await Self.poll(api, lockedCodes)
            #expect(try Self.error(of: refused) == "access_denied", "\(refused.text)")
            let devices = try await api.admin(.get, "/admin/apps/checks/devices")
            #expect(devices.text.contains(#""status":"locked""#))
            try api.expectStatus(
                try await api.admin(
                    .patch,
                    "/admin/apps/checks/devices/\(registration.registrationID)",
                    json: #"{"status": "active"}"#
                ),
                .ok
            )
            let unlocked = try await Self.signedIn(api, device: "tablet-9")
            #expect(try await Self.settingsStatus(api, unlocked.access) == .ok)

            let blocked = try await Self.signedIn(api, device: "tablet-3")
            try api.expectStatus(try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": true}"#), .ok)
            #expect(try await Self.settingsStatus(api, blocked.access) == .unauthorized)
            #expect(try Self.error(of: try await Self.refresh(api, blocked.refresh)) == "invalid_grant")
            // A blocked user cannot approve a device either.
            let codes = try await Self.start(api)
            #expect(try await Self.decide(api, codes.userCode).status == .unauthorized)
        }
    }

    @Test(
        "16 refreshes of one token at once from 16 addresses, 20 times: the reuse is seen, no token of the race survives",
        arguments: Backend.available
    )
    func parallelRefreshes(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend) { configuration in
            configuration.trustedProxies = [try! #require(AddressRange("127.0.0.0/8"))]
        }
        try await fixture.runSeeded { api in
            try await Self.oauth2(api)
            for trial in 0..<20 {
                let first = try await Self.signedIn(api, device: "tablet-\(trial)")
                let replies = try await api.parallelForms(
                    count: 16,
                    "/apps/checks/oauth/token",
                    [("grant_type", "refresh_token"), ("refresh_token", first.refresh), ("client_id", "checks")],
                    forwardedFor: { "198.51.100.\($0 + 1)" }
                )
                let winners = replies.filter { $0.status == .ok }
                let issued = winners.compactMap { try? Self.tokens(from: $0) }
                #expect(issued.count == winners.count, "trial \(trial): \(winners.map(\.text))")
                for reply in replies where reply.status != .ok {
                    #expect(
                        reply.status == .badRequest && (try? Self.error(of: reply)) == "invalid_grant",
                        "trial \(trial): \(reply.status) \(reply.text)"
                    )
                }
                #expect(issued.count <= 1, "trial \(trial): one refresh at most wins")
                for tokens in issued {
                    let again = try await Self.refresh(api, tokens.refresh)
                    #expect(
                        again.status == .badRequest && (try? Self.error(of: again)) == "invalid_grant",
                        "trial \(trial): the winner's refresh token outlived the reuse"
                    )
                    #expect(try await Self.settingsStatus(api, tokens.access) == .unauthorized, "trial \(trial)")
                }
                #expect(try await Self.settingsStatus(api, first.access) == .unauthorized, "trial \(trial)")
            }
        }
    }

    @Test(
        "16 refreshes of one token at once from the device's one address: each gets tokens of its own, each valid",
        arguments: Backend.available
    )
    func parallelRefreshesOfOneClient(backend: Backend) async throws {
        try await ServerFixture(over: .loopback, backend: backend).runSeeded { api in
            try await Self.oauth2(api)
            for trial in 0..<5 {
                let first = try await Self.signedIn(api, device: "tablet-\(trial)")
                let replies = try await api.parallelForms(
                    count: 16,
                    "/apps/checks/oauth/token",
                    [("grant_type", "refresh_token"), ("refresh_token", first.refresh), ("client_id", "checks")]
                )
                #expect(replies.allSatisfy { $0.status == .ok }, "trial \(trial): \(replies.map(\.status))")
                let issued = replies.compactMap { try? Self.tokens(from: $0) }
                #expect(Set(issued.map(\.refresh)).count == 16, "trial \(trial)")
                for tokens in issued {
                    #expect(try await Self.settingsStatus(api, tokens.access) == .ok, "trial \(trial)")
                }
            }
        }
    }

    @Test(
        "user info names who an access token was issued to; a bad token is 401 invalid_token",
        arguments: Backend.available
    )
    func userInfo(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await Self.oauth2(api)
            let tokens = try await Self.signedIn(api)
            let reply = try await api.send(.get, "/apps/checks/oauth/userinfo", token: tokens.access)
            try api.expectStatus(reply, .ok)
            #expect(reply.headers[.cacheControl] == "no-store")
            let user = try reply.decode(Components.Schemas.UserInfo.self)
            #expect(user.sub == "alice" && user.name == "Alice" && user.preferredUsername == "alice")
            for token in [nil, "gw_unknown", tokens.refresh] {
                let refused = try await api.send(.get, "/apps/checks/oauth/userinfo", token: token)
                #expect(refused.status == .unauthorized)
                #expect(refused.headers[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
                #expect(try Self.error(of: refused) == "invalid_token")
            }
            // A blocked user's token tells nothing more.
            try api.expectStatus(try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": true}"#), .ok)
            let blocked = try await api.send(.get, "/apps/checks/oauth/userinfo", token: tokens.access)
            #expect(blocked.status == .unauthorized)
        }
    }

    @Test("every bad request gets the RFC's error, never a 500")
    func protocolErrors() async throws {
        try await ServerFixture().runSeeded { api in
            // A basic app is no OAuth client.
            let basic = try await Self.form(api, "/apps/checks/oauth/device_authorization", [("client_id", "checks")])
            #expect(basic.status == .badRequest)
            #expect(try Self.error(of: basic) == "unauthorized_client")
            #expect(try await api.send(.get, "/.well-known/oauth-authorization-server/apps/checks").status == .notFound)
            #expect(try await api.send(.get, "/apps/checks/oauth/device").status == .notFound)
            // User info without a token is 401 whatever the app; with one, a basic app has none.
            #expect(try await api.send(.get, "/apps/checks/oauth/userinfo").status == .unauthorized)
            #expect(try await api.send(.get, "/apps/nope/oauth/userinfo").status == .unauthorized)
            let session = try await api.signIn("alice")
            let basicInfo = try await api.send(.get, "/apps/checks/oauth/userinfo", token: session)
            #expect(try Self.error(of: basicInfo) == "unauthorized_client")
            try await Self.oauth2(api)

            let token = "/apps/checks/oauth/token"
            let cases: [(path: String, fields: [(String, String)], status: HTTPResponse.Status, error: String)] = [
                (token, [("grant_type", "password"), ("client_id", "checks")], .badRequest, "unsupported_grant_type"),
                (token, [("grant_type", "refresh_token"), ("client_id", "other")], .unauthorized, "invalid_client"),
                (token, [("grant_type", "refresh_token")], .unauthorized, "invalid_client"),
                (
                    "/apps/nope/oauth/token", [("grant_type", "refresh_token"), ("client_id", "nope")], .unauthorized,
                    "invalid_client"
                ),
                (token, [("client_id", "checks")], .badRequest, "invalid_request"),
                (token, [("grant_type", "refresh_token"), ("client_id", "checks")], .badRequest, "invalid_request"),
                (token, [("grant_type", Self.deviceGrant), ("client_id", "checks")], .badRequest, "invalid_request"),
                (
                    token, [("grant_type", Self.deviceGrant), ("device_code", "gw_nothing"), ("client_id", "checks")],
                    .badRequest, "invalid_grant"
                ),
                (
                    token, [("grant_type", "refresh_token"), ("refresh_token", "x"), ("client_id", "checks")],
                    .badRequest, "invalid_grant"
                ),
                (
                    "/apps/checks/oauth/device_authorization", [("client_id", "checks"), ("device_id", "no spaces")],
                    .badRequest, "invalid_request"
                ),
                ("/apps/checks/oauth/device_authorization", [], .badRequest, "invalid_request"),
                ("/apps/checks/oauth/revoke", [("client_id", "checks")], .badRequest, "invalid_request"),
            ]
            for item in cases {
                let reply = try await Self.form(api, item.path, item.fields)
                #expect(reply.status == item.status, "\(item.path) \(item.fields)")
                #expect(try Self.error(of: reply) == item.error, "\(item.path) \(item.fields)")
                #expect(reply.headers[.cacheControl] == "no-store")
            }
            let json = try await api.send(.post, token, json: #"{"grant_type": "refresh_token"}"#)
            #expect(json.status == .unsupportedMediaType)
            #expect(try Self.error(of: json) == "invalid_request")
            let malformed = try await api.send(
                .post,
                token,
                json: "grant_type=%zz&client_id=checks",
                headers: [.contentType: "application/x-www-form-urlencoded"]
            )
            #expect(malformed.status.code < 500)
            #expect(try Self.error(of: malformed) != nil)
            // A field given twice is refused in the form's own words, not the JSON API's.
            let twice = try await Self.form(
                api,
                "/apps/checks/oauth/device_authorization",
                [("client_id", "checks"), ("client_id", "checks")]
            )
            let twiceError = try Self.error(of: twice)
            #expect(twice.status == .badRequest && twiceError == "invalid_request")
            let description = try twice.json["error_description"] as? String ?? ""
            #expect(description.contains("form") && !description.contains("JSON"), "\(description)")
        }
    }

    @Test("user codes entered on the page are limited per address")
    func userCodeGuessing() async throws {
        try await ServerFixture().runSeeded { api in
            try await Self.oauth2(api)
            let codes = try await Self.start(api)
            for _ in 0..<10 {
                #expect(try await Self.decide(api, "BBBB-BBBB").status == .badRequest)
            }
            let refused = try await Self.decide(api, codes.userCode)
            #expect(refused.status == .tooManyRequests)
            #expect(try Self.error(of: try await Self.poll(api, codes)) == "authorization_pending")
        }
    }
}

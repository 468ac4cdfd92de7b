import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@Suite(
    "Sign-in throttling: counted before the check, per user across addresses, and never a lock-out by a guesser",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct SignInThrottleTests {
    @Test(
        "40 parallel guesses from one address: five are checked, the rest refused, all five counted",
        arguments: Backend.available
    )
    func parallelGuesses(backend: Backend) async throws {
        // Room for every request in the password-check queue: only the throttle refuses.
        let fixture = try await ServerFixture(over: .loopback, backend: backend) { $0.concurrentPasswordChecks = 64 }
        try await fixture.runSeeded { api in
            let statuses = try await api.parallelSignIns(count: 40) { _ in ("alice", "guess", [:]) }
            #expect(statuses.filter { $0 == .unauthorized }.count == 5)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 35)
            // The right password is refused too: the five failures are on record.
            #expect(try await api.signInReply("alice").status == .tooManyRequests)
        }
    }

    @Test(
        "guesses spread over 20 addresses forwarded by a trusted proxy stop at the per-user limit",
        arguments: Backend.available
    )
    func manyAddresses(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend) { configuration in
            configuration.trustedProxies = [try! #require(AddressRange("127.0.0.0/8"))]
        }
        try await fixture.runSeeded { api in
            var checked = 0
            for round in 1...5 {
                for address in 1...20 {
                    let forwarded: HTTPFields = [forwardedFor: "198.51.100.\(address)"]
                    let reply = try await api.signInReply("alice", password: "guess-\(round)", headers: forwarded)
                    if reply.status == .unauthorized { checked += 1 }
                }
            }
            // 20 per user from devices without a cookie, whatever the addresses.
            #expect(checked == 20)
            let fresh: HTTPFields = [forwardedFor: "203.0.113.9"]
            let alice = try await api.signInReply("alice", headers: fresh)
            #expect(alice.status == .tooManyRequests)
            // Bob is not slowed by guesses at Alice.
            let bob = try await api.signInReply("bob", headers: fresh)
            #expect(bob.status == .created)
        }
    }

    @Test("a forwarded address from a peer that is not a trusted proxy is ignored", arguments: Backend.available)
    func untrustedForwarding(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            for index in 1...5 {
                let forwarded: HTTPFields = [forwardedFor: "198.51.100.\(index)"]
                let reply = try await api.signInReply("alice", password: "guess", headers: forwarded)
                #expect(reply.status == .unauthorized)
            }
            // All five counted for the one real address.
            let forwarded: HTTPFields = [forwardedFor: "198.51.100.99"]
            let reply = try await api.signInReply("alice", headers: forwarded)
            #expect(reply.status == .tooManyRequests)
        }
    }

    @Test(
        "a guesser cannot lock the person out of a device they signed in on: its cookie has its own count",
        arguments: Backend.available
    )
    func deviceCookieKeepsThePersonIn(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let first = try await api.signInReply("alice")
            try api.expectStatus(first, .created)
            let cookie = try #require(try first.decode(Components.Schemas.Session.self).deviceCookie)
            #expect(cookie.hasPrefix("gwd_"))

            // Someone guesses until Alice is throttled everywhere without a cookie.
            for _ in 1...25 { _ = try await api.signInReply("alice", password: "guess", device: "attacker") }
            #expect(try await api.signInReply("alice").status == .tooManyRequests)

            // Alice, on her device, is let in; no new cookie is needed.
            let again = try await api.signInReply("alice", cookie: cookie)
            try api.expectStatus(again, .created)
            #expect(try again.decode(Components.Schemas.Session.self).deviceCookie == nil)

            // Bob's cookie, an unknown one and a malformed one count as none.
            let bobCookie = try #require(
                try await api.signInReply("bob").decode(Components.Schemas.Session.self).deviceCookie
            )
            #expect(try await api.signInReply("alice", cookie: bobCookie).status == .tooManyRequests)
            #expect(
                try await api.signInReply("alice", cookie: "gwd_" + String(repeating: "A", count: 43)).status
                    == .tooManyRequests
            )
            #expect(try await api.signInReply("alice", cookie: "x").status == .tooManyRequests)

            // A stolen cookie gives a guesser five tries, then it is throttled too.
            for _ in 1...5 {
                #expect(try await api.signInReply("alice", password: "guess", cookie: cookie).status == .unauthorized)
            }
            #expect(try await api.signInReply("alice", cookie: cookie).status == .tooManyRequests)
        }
    }

    /// The sign-in page of the code grant, sent as a browser sends it, from `address`.
    private static func pageSignIn(
        _ browser: PageBrowser,
        password: String,
        address: String
    ) async throws -> HTTPResponse.Status {
        let forwarded: HTTPFields = [forwardedFor: address]
        let page = try await browser.get(
            "/apps/checks/oauth/authorize?"
                + OAuthAuthorizationCodeTests.query(OAuthAuthorizationCodeTests.request()),
            headers: forwarded
        )
        guard page.status == .ok else { return page.status }
        return try await browser.submit(
            page,
            to: "/apps/checks/oauth/authorize",
            [("username", "alice"), ("password", password), ("decision", "approve")],
            headers: forwarded
        ).status
    }

    @Test(
        "the OAuth sign-in pages: 20 strangers' guesses lock no one out of a browser that signed in before",
        arguments: Backend.available
    )
    func pageDeviceCookieKeepsThePersonIn(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend) { configuration in
            configuration.trustedProxies = [try! #require(AddressRange("127.0.0.0/8"))]
        }
        try await fixture.runSeeded { api in
            try await OAuthAuthorizationCodeTests.setUp(api)
            let alices = PageBrowser(api.running)
            #expect(try await Self.pageSignIn(alices, password: "alice-password", address: "203.0.113.1") == .seeOther)
            let cookie = try #require(alices.cookieJar["gangway_device"])
            #expect(cookie.hasPrefix("gwd_"))

            // 20 guesses from 20 addresses, each from a browser of its own.
            for address in 1...20 {
                let status = try await Self.pageSignIn(
                    PageBrowser(api.running),
                    password: "guess",
                    address: "198.51.100.\(address)"
                )
                #expect(status == .unauthorized)
            }
            // A browser that never signed in as Alice is throttled now, even with her password,
            let stranger = PageBrowser(api.running)
            #expect(
                try await Self.pageSignIn(stranger, password: "alice-password", address: "203.0.113.2")
                    == .tooManyRequests
            )
            // and a device cookie of hers taken to another browser gives it no way around it
            // when it is not hers.
            let bobs = PageBrowser(api.running)
            bobs.setCookie("gangway_device", "gwd_" + String(repeating: "A", count: 43))
            #expect(
                try await Self.pageSignIn(bobs, password: "alice-password", address: "203.0.113.3") == .tooManyRequests
            )
            // Alice's own browser is let in, with its own count, and needs no new cookie.
            #expect(try await Self.pageSignIn(alices, password: "alice-password", address: "203.0.113.1") == .seeOther)
            #expect(alices.cookieJar["gangway_device"] == cookie)
        }
    }

    @Test("under a flood of unknown names, a browser that signed in before still signs in on the page")
    func pageSignInThroughAFlood() async throws {
        let fixture = try await ServerFixture(over: .loopback, bcryptCost: 10) { $0.concurrentPasswordChecks = 1 }
        try await fixture.runSeeded { api in
            try await OAuthAuthorizationCodeTests.setUp(api)
            // The flood goes to another app's sign-in API, which takes passwords; its
            // password checks are the same ones the pages' wait for.
            try await api.admin(.post, "/admin/apps", json: #"{"appID": "other", "name": "Other"}"#).expect(.created)
            let alices = PageBrowser(api.running)
            #expect(try await Self.pageSignIn(alices, password: "alice-password", address: "-") == .seeOther)
            let page = try await alices.get(
                "/apps/checks/oauth/authorize?"
                    + OAuthAuthorizationCodeTests.query(OAuthAuthorizationCodeTests.request())
            )
            async let flood = api.parallelSignIns(count: 24, appID: "other") { index in
                ("nobody-\(index)", "guess", [:])
            }
            try await Task.sleep(for: .milliseconds(20))
            let alice = try await alices.submit(
                page,
                to: "/apps/checks/oauth/authorize",
                [("username", "alice"), ("password", "alice-password"), ("decision", "approve")]
            )
            #expect(alice.status == .seeOther)
            #expect(try await flood.contains(.serviceUnavailable))
        }
    }

    @Test("the cookie stops counting after its lifetime, and the next sign-in gives a new one")
    func cookieLifetime() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            let cookie = try #require(
                try await api.signInReply("alice").decode(Components.Schemas.Session.self).deviceCookie
            )
            fixture.clock.advance(by: .seconds(181 * 24 * 60 * 60))
            let later = try await api.signInReply("alice", cookie: cookie)
            try api.expectStatus(later, .created)
            let renewed = try #require(try later.decode(Components.Schemas.Session.self).deviceCookie)
            #expect(renewed != cookie)
            // Guesses from this address block it; the expired cookie is no way around that,
            // the renewed one is.
            for _ in 1...5 {
                #expect(try await api.signInReply("alice", password: "guess").status == .unauthorized)
            }
            #expect(try await api.signInReply("alice", cookie: cookie).status == .tooManyRequests)
            #expect(try await api.signInReply("alice", cookie: renewed).status == .created)
        }
    }

    @Test("a flood of unknown-user sign-ins is refused with 503 and Retry-After instead of queueing")
    func floodIsShed() async throws {
        // bcrypt cost 10 makes each check take long enough for the requests to overlap.
        let fixture = try await ServerFixture(over: .loopback, bcryptCost: 10) { $0.concurrentPasswordChecks = 1 }
        try await fixture.runSeeded { api in
            let statuses = try await api.parallelSignIns(count: 16) { index in ("nobody-\(index)", "guess", [:]) }
            #expect(statuses.contains(.serviceUnavailable))
            #expect(statuses.allSatisfy { $0 == .serviceUnavailable || $0 == .unauthorized })
            let busy = try await api.parallelSignInReplies(count: 16) { index in ("nobody-\(index)", "guess", [:]) }
                .first { $0.status == .serviceUnavailable }
            #expect(busy?.code == "SERVER_BUSY")
            #expect(busy?.headers[.retryAfter] == "1")

            // A sign-in that presents its device cookie waits in a queue of its own, ahead
            // of the flood's, and is never shed with it.
            let cookie = try #require(
                try await api.signInReply("alice").decode(Components.Schemas.Session.self).deviceCookie
            )
            async let flood = api.parallelSignIns(count: 24) { index in ("nobody-\(index)", "guess", [:]) }
            try await Task.sleep(for: .milliseconds(20))
            let alice = try await api.signInReply("alice", cookie: cookie)
            #expect(alice.status == .created)
            #expect(try await flood.contains(.serviceUnavailable))
        }
    }

    @Test("a wrong password takes as long for a user whose hash has an older, lower cost as for an unknown user")
    func olderCostTakesAsLong() async throws {
        let fixture = try await ServerFixture(bcryptCost: 4)
        try await fixture.runSeeded { _ in }
        var configuration = fixture.server.configuration
        configuration.bcryptCost = 10
        // Room for every check: only the checks' own time is measured.
        configuration.concurrentPasswordChecks = 4
        let restarted = try await MobileServicesServer(configuration: configuration, now: fixture.clock.now)
        #expect(try await restarted.storage.user(named: "alice")?.passwordHash.hasPrefix("$2b$04$") == true)
        try await TestServer(server: restarted, adminToken: fixture.adminToken).run { running in
            func time(_ username: String, _ index: Int) async throws -> Duration {
                let body = #"{"username": "\#(username)", "password": "guess-\#(index)", "deviceID": "d"}"#
                let started = ContinuousClock.now
                let reply = try await running.send(.post, "/apps/checks/sessions", json: body)
                #expect(reply.status == .unauthorized)
                return started.duration(to: .now)
            }
            // Taken in turns, so the rest of the suite loads both alike, and compared at
            // their quickest: other tests' load only ever adds time, and a whole suite of
            // browsers and bcrypt on two cores once made an unknown user's median eight
            // times bob's padded one.
            var unknownTimes: [Duration] = []
            var olderTimes: [Duration] = []
            for index in 0..<5 {
                unknownTimes.append(try await time("nobody", index))
                olderTimes.append(try await time("bob", index))
            }
            let unknown = try #require(unknownTimes.min())
            let older = try #require(olderTimes.min())
            // Unpadded, bob's check costs 2⁴ rounds against 2¹⁰: about a sixtieth of the time.
            // Padded, about the same; a quarter leaves room for a busy machine and still
            // fails the unpadded sixtieth fifteen times over.
            #expect(older > unknown * 0.25, "older cost \(older), unknown \(unknown)")
        }
    }

    @Test(
        "a user name with a NUL or other control character is a wrong sign-in, counted, on both stores",
        arguments: Backend.available
    )
    func controlCharactersInTheName(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let reply = try await api.signInReply("\u{0}\u{99}\u{95}\u{5}}s", password: "guess")
            #expect(reply.status == .unauthorized, "\(reply.text)")
            #expect(try await api.signInReply("alice\u{0}", password: "guess").status == .unauthorized)
        }
    }

    @Test("a stored hash of another bcrypt cost is replaced at the next sign-in")
    func rehashOnSignIn() async throws {
        let fixture = try await ServerFixture(bcryptCost: 5)
        try await fixture.runSeeded { _ in }
        var configuration = fixture.server.configuration
        configuration.bcryptCost = 4
        let restarted = try await MobileServicesServer(configuration: configuration, now: fixture.clock.now)
        #expect(try await restarted.storage.user(named: "alice")?.passwordHash.hasPrefix("$2b$05$") == true)
        try await TestServer(server: restarted, adminToken: fixture.adminToken).run { running in
            let signIn = #"{"username": "alice", "password": "alice-password", "deviceID": "d"}"#
            try await running.send(.post, "/apps/checks/sessions", json: signIn).expect(.created)
            #expect(try await restarted.storage.user(named: "alice")?.passwordHash.hasPrefix("$2b$04$") == true)
            // The new hash checks the same password.
            try await running.send(.post, "/apps/checks/sessions", json: signIn).expect(.created)
        }
    }
}

private let forwardedFor = HTTPField.Name("X-Forwarded-For")!

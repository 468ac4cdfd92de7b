import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "Several servers on one database, as separate processes would run them",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct SharedDatabaseTests {
    /// The version of the first check `api`'s server answers with.
    private func version(_ api: API, _ token: String) async throws -> Int? {
        let reply = try await api.send(.get, "/apps/checks/data/checks", token: token)
        let list = try reply.decode(Components.Schemas.EntityList.self)
        return list.entities.first.map { Int($0.version) }
    }

    /// A second server over the fixture's database, as a second process would be.
    private func second(_ fixture: ServerFixture, cacheLifetime: Duration) async throws -> MobileServicesServer {
        var configuration = fixture.server.configuration
        configuration.cacheLifetime = cacheLifetime
        return try await MobileServicesServer(
            configuration: configuration,
            logger: fixture.logs.logger,
            now: fixture.clock.now
        )
    }

    @Test(
        "a sign-out, a lock and a policy change on one server reach another at once without a cache; with an hour's, on PostgreSQL once it hears the notice, on SQLite once the cache expires",
        arguments: Backend.available
    )
    func changesReachOtherServers(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend)
        let uncached = try await second(fixture, cacheLifetime: .zero)
        let cached = try await second(fixture, cacheLifetime: .seconds(3600))
        let expiring = try await second(fixture, cacheLifetime: .milliseconds(300))
        #expect(uncached.adminToken == .existing(path: fixture.server.configuration.adminTokenPath.path))

        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let bob = try await api.signIn("bob", device: "device-2")
            let bobRegistration = try await api.register(token: bob, device: "device-2")
            try await TestServer(server: uncached, adminToken: fixture.adminToken).run { running in
                let other = API(running: running, fixture: fixture)
                #expect(
                    try await uncached.activationPublicKeyPEM() == (try await fixture.server.activationPublicKeyPEM())
                )
                try await TestServer(server: cached, adminToken: fixture.adminToken).run { running in
                    let stale = API(running: running, fixture: fixture)
                    try await TestServer(server: expiring, adminToken: fixture.adminToken).run { running in
                        let soon = API(running: running, fixture: fixture)
                        // All see both sessions, and the caching ones now hold them.
                        for process in [other, stale, soon] {
                            #expect(try await process.send(.get, "/apps/checks/settings", token: token).status == .ok)
                            #expect(try await process.send(.get, "/apps/checks/settings", token: bob).status == .ok)
                        }

                        try await api.admin(
                            .patch,
                            "/admin/apps/checks",
                            json: #"{"settings": {"passwordPolicy": {"passwordPolicyMinLength": 11}}}"#
                        ).expect(.ok)
                        let policy = try await other.send(.get, "/apps/checks/settings", token: token)
                            .decode(Components.Schemas.SettingsExchange.self).mobileservices.settingsExchange
                            .passwordPolicy
                        #expect(policy?.passwordPolicyMinLength == 11)
                        if backend == .postgresql {
                            // The process with an hour's cache hears the write's notice.
                            #expect(
                                try await eventually {
                                    try await stale.send(.get, "/apps/checks/settings", token: token)
                                        .decode(Components.Schemas.SettingsExchange.self).mobileservices
                                        .settingsExchange.passwordPolicy?.passwordPolicyMinLength == 11
                                }
                            )
                        }

                        try await api.send(.delete, "/apps/checks/sessions/current", token: token).expect(.noContent)
                        fixture.clock.advance(by: .seconds(1))
                        try await api.admin(
                            .patch,
                            "/admin/apps/checks/devices/\(bobRegistration.registrationID)",
                            json: #"{"status": "locked"}"#
                        ).expect(.ok)
                        // A process that keeps nothing sees both at once.
                        #expect(
                            try await other.send(.get, "/apps/checks/settings", token: token).status == .unauthorized
                        )
                        #expect(
                            try await other.send(.get, "/apps/checks/settings", token: bob).code == "TRAFFIC_REG_LOCKED"
                        )
                        if backend == .postgresql {
                            // Its hour of cache does not matter: it hears both notices.
                            #expect(
                                try await eventually {
                                    try await stale.send(.get, "/apps/checks/settings", token: token).status
                                        == .unauthorized
                                }
                            )
                            #expect(
                                try await eventually {
                                    try await stale.send(.get, "/apps/checks/settings", token: bob).code
                                        == "TRAFFIC_REG_LOCKED"
                                }
                            )
                        } else {
                            // SQLite announces nothing (one process owns a file): within its
                            // cache lifetime another process may still honour them, the
                            // documented bound on how stale a process may be.
                            #expect(try await stale.send(.get, "/apps/checks/settings", token: token).status == .ok)
                            #expect(try await stale.send(.get, "/apps/checks/settings", token: bob).status == .ok)
                        }
                        // Past its lifetime, the process with a short cache sees both.
                        try await Task.sleep(for: .milliseconds(400))
                        #expect(
                            try await soon.send(.get, "/apps/checks/settings", token: token).status == .unauthorized
                        )
                        #expect(
                            try await soon.send(.get, "/apps/checks/settings", token: bob).code == "TRAFFIC_REG_LOCKED"
                        )
                        let fresh = try await soon.signIn("alice", device: "device-3")
                        let soonPolicy = try await soon.send(.get, "/apps/checks/settings", token: fresh)
                            .decode(Components.Schemas.SettingsExchange.self).mobileservices.settingsExchange
                            .passwordPolicy
                        #expect(soonPolicy?.passwordPolicyMinLength == 11)
                    }
                }
            }
        }
    }

    @Test(
        "a check the admin changes through one server reaches the others at once without a cache; with an hour's, on PostgreSQL once they hear the notice, on SQLite once the cache expires",
        arguments: Backend.available
    )
    func entityChangesReachOtherServers(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend)
        let uncached = try await second(fixture, cacheLifetime: .zero)
        let cached = try await second(fixture, cacheLifetime: .seconds(3600))
        let expiring = try await second(fixture, cacheLifetime: .milliseconds(300))
        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            _ = try await api.register(token: token)
            let path = "/admin/apps/checks/data/checks/F-GKXA-fuel"
            try api.expectStatus(try await api.admin(.put, path, json: #"{"fields": {"status": "open"}}"#), .created)
            try await TestServer(server: uncached, adminToken: fixture.adminToken).run { running in
                let other = API(running: running, fixture: fixture)
                try await TestServer(server: cached, adminToken: fixture.adminToken).run { running in
                    let stale = API(running: running, fixture: fixture)
                    try await TestServer(server: expiring, adminToken: fixture.adminToken).run { running in
                        let soon = API(running: running, fixture: fixture)
                        #expect(try await version(stale, token) == 1)
                        #expect(try await version(soon, token) == 1)
                        try api.expectStatus(
                            try await api.admin(.put, path, json: #"{"fields": {"status": "done"}}"#),
                            .ok
                        )
                        // The process that wrote sees it at once, so does one that keeps nothing.
                        #expect(try await version(api, token) == 2)
                        #expect(try await version(other, token) == 2)
                        if backend == .postgresql {
                            #expect(try await eventually { try await version(stale, token) == 2 })
                        } else {
                            // Within its cache lifetime another process may still answer the old one.
                            #expect(try await version(stale, token) == 1)
                        }
                        // Past its lifetime, the one with a short cache answers the new one.
                        try await Task.sleep(for: .milliseconds(400))
                        #expect(try await version(soon, token) == 2)
                    }
                }
            }
        }
    }

    @Test(
        "parallel guesses through two servers on one database: five are checked in all",
        arguments: Backend.available
    )
    func throttleAcrossServers(backend: Backend) async throws {
        // Room for every request in the password-check queues: only the throttle refuses.
        let fixture = try await ServerFixture(over: .loopback, backend: backend) { $0.concurrentPasswordChecks = 64 }
        let other = try await second(fixture, cacheLifetime: .seconds(1))
        try await fixture.runSeeded { api in
            try await TestServer(server: other, adminToken: fixture.adminToken).run { running in
                let statuses = try await api.parallelSignIns(count: 30, ports: [api.running.port, running.port]) { _ in
                    ("alice", "guess", [:])
                }
                #expect(statuses.filter { $0 == .unauthorized }.count == 5)
                #expect(statuses.filter { $0 == .tooManyRequests }.count == 25)
            }
        }
    }

    @Test(
        "with an hour of cache, a lock, a sign-out and a block take effect at once in the process that made them",
        arguments: Backend.available
    )
    func ownChangesBypassTheCache(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend) { $0.cacheLifetime = .seconds(3600) }
        try await fixture.runSeeded { api in
            let first = try await api.signIn("alice")
            let registration = try await api.register(token: first)
            // Read once, so the session and the registration are cached.
            #expect(try await api.send(.get, "/apps/checks/settings", token: first).status == .ok)
            fixture.clock.advance(by: .seconds(1))
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(registration.registrationID)",
                json: #"{"status": "locked"}"#
            ).expect(.ok)
            #expect(try await api.send(.get, "/apps/checks/settings", token: first).code == "TRAFFIC_REG_LOCKED")
            // The lock holds for a sign-in on that device too; the unlock takes effect at once.
            #expect(try await api.signInReply("alice").code == "TRAFFIC_REG_LOCKED")
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(registration.registrationID)",
                json: #"{"status": "active"}"#
            ).expect(.ok)

            fixture.clock.advance(by: .seconds(1))
            let second = try await api.signIn("alice")
            #expect(try await api.send(.get, "/apps/checks/settings", token: second).status == .ok)
            try await api.send(.delete, "/apps/checks/sessions/current", token: second).expect(.noContent)
            #expect(try await api.send(.get, "/apps/checks/settings", token: second).status == .unauthorized)

            let third = try await api.signIn("alice")
            #expect(try await api.send(.get, "/apps/checks/settings", token: third).status == .ok)
            try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": true}"#).expect(.ok)
            #expect(try await api.send(.get, "/apps/checks/settings", token: third).status == .unauthorized)
        }
    }

    @Test(
        "the console on servers sharing a database: a session, a page's form and the sign-in throttle hold on each, a sign-out on one ends the session on all",
        arguments: Backend.available
    )
    func console(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend)
        let other = try await second(fixture, cacheLifetime: .zero)
        try await fixture.runSeeded { api in
            let password = "a long operator passphrase"
            let secret = try await OperatorsTests.enrol(api, fixture, "ops.tom", password: password)
            // The enrolment took this step's code: sign in with the next one.
            fixture.clock.advance(by: .seconds(30))
            let first = PageBrowser(api.running)
            let signInPage = try await first.get("/console/sign-in")
            let opened = try await first.submit(
                signInPage,
                to: "/console/sign-in",
                [
                    ("name", "ops.tom"), ("password", password),
                    ("code", try ConsoleBrowserTests.code(secret: secret, at: fixture.clock.now())),
                ]
            )
            #expect(opened.status == .seeOther)
            let page = try await first.get("/console/users/alice")
            try page.expect(.ok)
            try await TestServer(server: other, adminToken: fixture.adminToken).run { running in
                let second = PageBrowser(running)
                for (name, value) in first.cookieJar { second.setCookie(name, value) }
                // The first server's page, sent to the second: its session and its form's token hold.
                let blocked = try await second.submit(
                    page,
                    to: "/console/users/alice",
                    [("action", "block"), ("confirmed", "yes")]
                )
                try blocked.expect(.ok)
                #expect(try await api.signInReply("alice").status == .unauthorized)
                #expect(try await first.get("/console/users/alice").text.contains("<dd>blocked</dd>"))
                let events = try await OperatorsTests.audit(api)
                #expect(events.first?.action == "updateUser" && events.first?.actor == "ops.tom")

                // Signed out on the second, the session is gone on the first too.
                let overview = try await second.get("/console")
                let out = try await second.post(
                    "/console/sign-out",
                    [("form_token", ConsoleAppsTests.formToken(of: overview.text))]
                )
                #expect(out.status == .seeOther)
                let gone = try await first.get("/console/users/alice")
                #expect(gone.status == .seeOther && gone.headers[.location] == "/console/sign-in")

                // Failed sign-ins count on both: three on one and two on the other block the
                // name at this address on each.
                func wrong(_ browser: PageBrowser) async throws -> ServerReply {
                    let form = try await browser.get("/console/sign-in")
                    return try await browser.submit(
                        form,
                        to: "/console/sign-in",
                        [("name", "ops.tom"), ("password", "a guessed passphrase"), ("code", "000000")]
                    )
                }
                for browser in [first, second, first, second, first] {
                    #expect(try await wrong(browser).status == .unauthorized)
                }
                #expect(try await wrong(second).status == .tooManyRequests)
                #expect(try await wrong(first).status == .tooManyRequests)
            }
        }
    }
}

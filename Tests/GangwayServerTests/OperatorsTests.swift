import Crypto
import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "Operators of the console and the audit: added with a one-use link, every admin change recorded",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct OperatorsTests {
    static func add(_ api: API, _ name: String, role: String) async throws -> Components.Schemas.OperatorEnrolment {
        let reply = try await api.admin(.post, "/admin/operators", json: #"{"name": "\#(name)", "role": "\#(role)"}"#)
        try reply.expect(.created)
        return try reply.decode(Components.Schemas.OperatorEnrolment.self)
    }

    /// Adds `count` users named `crew` and a number of `digits` digits, straight to the storage.
    static func addCrew(_ count: Int, digits: Int, _ fixture: ServerFixture) async throws {
        for index in 0..<count {
            try await fixture.server.storage.insertUser(
                UserRecord(
                    username: String(format: "crew%0\(digits)d", index),
                    displayName: "Crew \(index)",
                    passwordHash: "x",
                    createdAt: fixture.clock.now()
                )
            )
        }
    }

    static func audit(_ api: API, _ query: String = "") async throws -> [Components.Schemas.AuditEvent] {
        try await api.admin(.get, "/admin/audit\(query)").decode([Components.Schemas.AuditEvent].self)
    }

    @Test(
        "added, listed, given a new link, a new role, removed; each change once in the audit",
        arguments: Backend.available
    )
    func lifecycle(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend)
        try await fixture.runSeeded { api in
            let added = try await Self.add(api, "ops.alice", role: "admin")
            #expect(added._operator.name == "ops.alice")
            #expect(added._operator.role == .admin)
            #expect(!added._operator.enrolled)
            let link = try #require(URLComponents(string: added.enrolmentURL))
            #expect(link.path == "/console/enrol")
            let token = try #require(link.queryItems?.first { $0.name == "token" }?.value)
            #expect(token.count == 43)
            #expect(abs(added.expiresAt.timeIntervalSince(fixture.clock.now()) - 86_400) < 2)
            // The link is kept only as its hash.
            let stored = try #require(try await fixture.server.storage.operatorRecord(named: "ops.alice"))
            #expect(stored.enrolmentHash != nil)
            #expect(stored.enrolmentHash != Data(token.utf8))

            let again = try await api.admin(
                .post,
                "/admin/operators",
                json: #"{"name": "ops.alice", "role": "viewer"}"#
            )
            #expect(again.status == .conflict)
            #expect(again.code == "OPERATOR_EXISTS")
            for bad in [
                #"{"name": "", "role": "admin"}"#, #"{"name": "-ops", "role": "admin"}"#,
                #"{"name": "ops alice", "role": "admin"}"#, #"{"name": "ops", "role": "root"}"#,
                #"{"name": "\#(String(repeating: "a", count: 65))", "role": "admin"}"#,
            ] {
                #expect(try await api.admin(.post, "/admin/operators", json: bad).status == .badRequest, "\(bad)")
            }

            let renewed = try await api.admin(.post, "/admin/operators/ops.alice/enrolment")
            try renewed.expect(.ok)
            #expect(try renewed.decode(Components.Schemas.OperatorEnrolment.self).enrolmentURL != added.enrolmentURL)
            #expect(try await api.admin(.post, "/admin/operators/nobody/enrolment").code == "OPERATOR_NOT_FOUND")

            let changed = try await api.admin(.patch, "/admin/operators/ops.alice", json: #"{"role": "viewer"}"#)
            try changed.expect(.ok)
            #expect(try changed.decode(Components.Schemas.Operator.self).role == .viewer)
            #expect(
                try await api.admin(.patch, "/admin/operators/nobody", json: #"{"role": "viewer"}"#).status == .notFound
            )

            let listed = try await api.admin(.get, "/admin/operators").decode([Components.Schemas.Operator].self)
            #expect(listed.map(\.name) == ["ops.alice"])
            #expect(try await api.admin(.delete, "/admin/operators/ops.alice").status == .noContent)
            #expect(try await api.admin(.delete, "/admin/operators/ops.alice").status == .notFound)
            #expect(try await api.send(.get, "/admin/operators").status == .unauthorized)

            // Only what changed something is recorded, once, newest first; reads and refusals are not.
            let events = try await Self.audit(api)
            #expect(
                events.map(\.action) == ["removeOperator", "updateOperator", "enrolOperator", "addOperator"],
                "the seed is the server's own start, no one's action"
            )
            #expect(events.allSatisfy { $0.actor == "admin token" && $0.via == .api })
            #expect(events.first?.target == "/admin/operators/ops.alice")
            #expect(events.first?.address == "127.0.0.1")
            #expect(events.map(\.id) == events.map(\.id).sorted(by: >))
            let page = try await Self.audit(api, "?limit=2&before=\(events[1].id)")
            #expect(page.map(\.action) == ["enrolOperator", "addOperator"])
            for bad in ["?limit=0", "?limit=1001", "?before=0", "?before=x"] {
                #expect(try await api.admin(.get, "/admin/audit\(bad)").status == .badRequest, "\(bad)")
            }
        }
    }

    @Test(
        "users page by name, any case, from where the last page ended; LIKE's wildcards match themselves",
        arguments: Backend.available
    )
    func usersByName(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let storage = fixture.server.storage
            try await Self.addCrew(120, digits: 3, fixture)
            try await storage.insertUser(
                UserRecord(username: "crew_x", displayName: "x", passwordHash: "x", createdAt: fixture.clock.now())
            )
            let first = try await storage.users(prefix: "crew", after: nil, limit: 50)
            #expect(first.map(\.username) == (0..<50).map { String(format: "crew%03d", $0) })
            let later = try await storage.users(prefix: "CREW1", after: "crew109", limit: 50)
            #expect(later.map(\.username) == (110..<120).map { String(format: "crew%03d", $0) })
            #expect(try await storage.users(prefix: "crew_", after: nil, limit: 5).map(\.username) == ["crew_x"])
            #expect(try await storage.users(prefix: "%", after: nil, limit: 5).isEmpty)
            #expect(try await storage.users(prefix: "cr\\", after: nil, limit: 5).isEmpty)
            #expect(try await storage.users(prefix: "", after: "bob", limit: 1).map(\.username) == ["crew000"])
            // A search: any part of the name or the display name, any case, wildcards literal.
            try await storage.insertUser(
                UserRecord(
                    username: "zed",
                    displayName: "Zoë 50%_Martín",
                    passwordHash: "x",
                    createdAt: fixture.clock.now()
                )
            )
            #expect(try await storage.users(containing: "0%_mart", after: nil, limit: 5).map(\.username) == ["zed"])
            #expect(try await storage.users(containing: "%", after: nil, limit: 5).map(\.username) == ["zed"])
            #expect(try await storage.users(containing: "W_X", after: nil, limit: 5).map(\.username) == ["crew_x"])
            #expect(
                try await storage.users(containing: "rew11", after: "crew112", limit: 3).map(\.username)
                    == ["crew113", "crew114", "crew115"]
            )
            #expect(try await storage.users(prefix: "z", containing: "crew", after: nil, limit: 5).isEmpty)
            #expect(try await storage.users(containing: "ZOË", after: nil, limit: 5).map(\.username) == ["zed"])

            // The admin API's page: the same rows, for gangway admin and the console alike.
            func listed(_ query: String) async throws -> [String] {
                let reply = try await api.admin(.get, "/admin/users?\(query)")
                try reply.expect(.ok)
                return try reply.decode([Components.Schemas.User].self).map(\.username)
            }
            #expect(
                try await listed("prefix=CREW1&after=crew109&limit=50")
                    == (110..<120).map { String(format: "crew%03d", $0) }
            )
            #expect(try await listed("prefix=crew&limit=3") == ["crew000", "crew001", "crew002"])
            #expect(try await listed("limit=2") == ["alice", "bob"])
            #expect(try await listed("after=BOB&limit=2") == ["crew000", "crew001"], "names are one in any case")
            #expect(try await listed("prefix=crew_") == ["crew_x"])
            #expect(try await listed("prefix=%00") == [], "a control character matches no one, on PostgreSQL too")
            #expect(try await listed("after=%01").isEmpty)
            #expect(try await api.admin(.get, "/admin/users").decode([Components.Schemas.User].self).count == 124)
            #expect(try await listed("search=50%25_MART") == ["zed"])
            #expect(try await listed("search=rew11&after=crew117") == ["crew118", "crew119"])
            #expect(try await listed("search=%00") == [])
            let long = String(repeating: "a", count: 129)
            for bad in ["limit=0", "limit=1001", "prefix=\(long)", "search=\(long)", "after=\(long)"] {
                #expect(try await api.admin(.get, "/admin/users?\(bad)").status == .badRequest, "\(bad)")
            }
        }
    }

    /// A console session of a new operator with `role`, made in the storage: the cookie
    /// header that carries it.
    static func consoleCookie(_ fixture: ServerFixture, _ name: String, role: OperatorRole) async throws -> HTTPFields {
        let storage = fixture.server.storage
        try await storage.insertOperator(OperatorRecord(name: name, role: role, createdAt: fixture.clock.now()))
        let token = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64URLEncoded
        try await storage.insertOperatorSession(
            OperatorSessionRecord(
                tokenHash: Data(SHA256.hash(data: Data(token.utf8))),
                operatorName: name,
                createdAt: fixture.clock.now(),
                lastSeenAt: fixture.clock.now()
            )
        )
        return [.cookie: "gangway_console=\(token)"]
    }

    @Test(
        "the console's downloads hold the whole audit, newest first, as CSV and as JSON, for a signed-in operator alone",
        arguments: Backend.available
    )
    func auditDownloads(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            for index in 0..<1_204 {
                try await fixture.server.storage.appendAuditEvent(
                    AuditEventRecord(
                        at: fixture.clock.now(),
                        actor: "admin token",
                        via: .api,
                        action: index == 1_203 ? "=cmd|' /C calc'!A0" : "createUser",
                        target: "/admin/users/u\(index)",
                        address: "127.0.0.1"
                    )
                )
            }
            let cookie = try await Self.consoleCookie(fixture, "ops.vic", role: .viewer)
            let csv = try await api.send(.get, "/console/audit.csv", headers: cookie)
            try csv.expect(.ok)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(csv.headers[.contentDisposition] == #"attachment; filename="gangway-audit.csv""#)
            let lines = csv.text.split(separator: "\n")
            #expect(lines.count == 1_205)
            #expect(lines.first == "id,at,actor,via,action,target,address,detail")
            #expect(lines[1].hasPrefix("1204,") && lines[1].contains(",'=cmd|' /C calc'!A0,"), "\(lines[1])")
            #expect(lines.last?.hasPrefix("1,") == true)
            let json = try await api.send(.get, "/console/audit.json", headers: cookie)
            let events = try json.decode([Components.Schemas.AuditEvent].self)
            #expect(events.count == 1_204)
            #expect(events.map(\.id) == (1...1_204).reversed().map(Int64.init))
            for path in ["/console/audit.csv", "/console/audit.json", "/console/audit"] {
                let anonymous = try await api.send(.get, path)
                #expect(anonymous.status == .seeOther, "\(path)")
                #expect(anonymous.headers[.location] == "/console/sign-in")
            }
            let page = try await api.send(.get, "/console/audit", headers: cookie)
            #expect(page.text.contains(#"<td data-label="ID">1204</td>"#))
            #expect(page.text.contains("href=\"/console/audit?before=1155\""), "fifty a page")
            #expect(!page.text.contains(#"<td data-label="ID">1154</td>"#))
            let older = try await api.send(.get, "/console/audit?before=1155", headers: cookie)
            #expect(older.text.contains(#"<td data-label="ID">1154</td>"#) && older.text.contains("Older events"))
        }
    }

    @Test("until an operator is added, the console's sign-in page says how the first one is; then no longer")
    func firstOperatorHint() async throws {
        try await ServerFixture().runSeeded { api in
            let empty = try await api.send(.get, "/console/sign-in")
            try empty.expect(.ok)
            #expect(empty.text.contains("No operator has been added yet."))
            #expect(empty.text.contains("<code>gangway admin operators add YOUR-NAME --role admin</code>"))
            _ = try await Self.add(api, "ops.first", role: "admin")
            let later = try await api.send(.get, "/console/sign-in")
            #expect(!later.text.contains("No operator has been added yet."))
        }
    }

    @Test("the audit page says each event in the console's words and is filtered by who and what; the API likewise")
    func auditInOperatorsWords() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            let registration = try await api.register(token: token).registrationID
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(registration)",
                json: #"{"status": "locked"}"#
            ).expect(.ok)
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"settings": {"passwordPolicy": {"passwordPolicyMinLength": 9}}}"#
            ).expect(.ok)
            let viewer = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let formToken = ConsoleAppsTests.formToken(of: try await viewer.get("/console").text)
            _ = try await viewer.post("/console/users/alice", [("form_token", formToken), ("action", "block")])

            let page = try await viewer.get("/console/audit")
            try page.expect(.ok)
            #expect(page.text.contains(#"<td data-label="What">Changed a device&#39;s status</td>"#), "\(page.text)")
            #expect(page.text.contains(#"<td data-label="Target">app checks, registration \#(registration)</td>"#))
            #expect(page.text.contains(#"<td data-label="What">Changed an app</td>"#))
            let detail = try await Self.audit(api, "?action=updateApp").first?.detail ?? ""
            #expect(page.text.contains("The shortest passcode allowed: 8 → 9"), "a setting by its label: \(detail)")
            #expect(!page.text.contains(">updateDevice<") && !page.text.contains(">/admin/apps/checks<"))
            #expect(page.text.contains("Was refused an action beyond their role"))

            let mine = try await viewer.get("/console/audit?actor=ops.vic")
            #expect(mine.text.contains("Was refused an action beyond their role"))
            #expect(!mine.text.contains(#">Changed a device&#39;s status</td>"#), "only ops.vic's")
            let locks = try await viewer.get("/console/audit?action=updateDevice")
            #expect(
                locks.text.contains(#">Changed a device&#39;s status</td>"#)
                    && !locks.text.contains(">Changed an app</td>")
            )
            #expect(locks.text.contains(#"<option value="updateDevice" selected>"#), "the filter is kept")
            // As the form sends it: "admin token" with its space as `+`.
            let byToken = try await viewer.get("/console/audit?actor=admin+token&action=updateDevice")
            #expect(byToken.text.contains(#">Changed a device&#39;s status</td>"#), "\(byToken.text)")
            #expect(byToken.text.contains(#"value="admin token""#), "the filter shown as typed")
            let none = try await viewer.get("/console/audit?actor=nobody")
            #expect(none.text.contains("No event matches the filter."))

            // The API's own filter, and its downloads keep the API's names.
            let listed = try await Self.audit(api, "?action=updateDevice")
            #expect(listed.count == 1 && listed.first?.target == "/admin/apps/checks/devices/\(registration)")
            #expect(try await Self.audit(api, "?actor=admin%20token").allSatisfy { $0.actor == "admin token" })
            #expect(try await api.admin(.get, "/admin/audit?actor=").status == .badRequest)
            // No operator's name or action holds a control character (C0, DEL or C1): such
            // a filter matches nothing, and PostgreSQL is never asked for a NUL.
            for filter in ["actor=%2B%C2%8F", "actor=a%00", "action=update%7FDevice"] {
                #expect(try await Self.audit(api, "?" + filter).isEmpty, "\(filter)")
            }
            #expect(try await viewer.get("/console/audit?actor=%C2%8F").text.contains("No event matches the filter."))
        }
    }

    /// Enrols `name` with `password` through the enrolment page, as a browser without
    /// script does: the key the page shows, as its base32 text.
    static func enrol(_ api: API, _ fixture: ServerFixture, _ name: String, password: String) async throws -> String {
        let enrolment = try await add(api, name, role: "operator")
        let link = try #require(URLComponents(string: enrolment.enrolmentURL))
        let browser = PageBrowser(api.running)
        let form = try await browser.get("\(link.path)?\(link.percentEncodedQuery ?? "")")
        let secret = String(try #require(form.text.firstMatch(of: /id="secret">([^<]*)</)?.output.1))
        let code = try ConsoleBrowserTests.code(secret: secret, at: fixture.clock.now())
        let enrolled = try await browser.submit(
            form,
            to: "/console/enrol",
            [("password", password), ("confirmation", password), ("code", code)]
        )
        #expect(enrolled.status == .seeOther)
        return secret
    }

    @Test(
        "console sign-in: five wrong tries from one address, the sixth waits and says how long; after the wait it opens",
        arguments: Backend.available
    )
    func signInThrottled(backend: Backend) async throws {
        let fixture = try await ServerFixture(over: .loopback, backend: backend)
        try await fixture.runSeeded { api in
            let password = "a long operator passphrase"
            let secret = try await Self.enrol(api, fixture, "ops.tom", password: password)
            let browser = PageBrowser(api.running)
            func signIn(_ password: String, code: String) async throws -> ServerReply {
                let page = try await browser.get("/console/sign-in")
                return try await browser.submit(
                    page,
                    to: "/console/sign-in",
                    [("name", "ops.tom"), ("password", password), ("code", code)]
                )
            }
            for _ in 1...5 {
                #expect(try await signIn("a guessed passphrase", code: "000000").status == .unauthorized)
            }
            // The log says whose sign-in failed and from where; a name that is no
            // operator's (perhaps a password typed in the wrong field) is not written.
            #expect(fixture.logs.text.contains(#""operator": ops.tom"#), "\(fixture.logs.text)")
            #expect(fixture.logs.text.contains(#""address": 127.0.0.1"#))
            let page = try await browser.get("/console/sign-in")
            let typo = try await browser.submit(
                page,
                to: "/console/sign-in",
                [("name", "my-secret-passphrase"), ("password", "x"), ("code", "000000")]
            )
            #expect(typo.status == .unauthorized)
            #expect(!fixture.logs.text.contains("my-secret-passphrase"))
            #expect(fixture.logs.text.contains(#""operator": (no such operator)"#))
            // The fifth blocked the name at this address for 30 seconds: the password is
            // not even checked.
            let right = try ConsoleBrowserTests.code(secret: secret, at: fixture.clock.now())
            let throttled = try await signIn(password, code: right)
            #expect(throttled.status == .tooManyRequests, "the right password and code wait too")
            let wait = try #require(throttled.headers[.retryAfter].flatMap { Int($0) })
            #expect(throttled.text.contains("try again in \(wait) seconds"))
            #expect(browser.cookieJar["gangway_console"] == nil)

            fixture.clock.advance(by: .seconds(wait))
            let opened = try await signIn(
                password,
                code: try ConsoleBrowserTests.code(secret: secret, at: fixture.clock.now())
            )
            #expect(opened.status == .seeOther)
            #expect(opened.headers[.location] == "/console")
            #expect(browser.cookieJar["gangway_console"] != nil)
            #expect(!fixture.logs.text.contains(password))
        }
    }

    @Test("a console session kept busy still ends twelve hours after it began", arguments: Backend.available)
    func absoluteLifetime(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let cookie = try await Self.consoleCookie(fixture, "ops.ivy", role: .viewer)
            // A page every 25 minutes keeps it from ever being idle for 30.
            for _ in 0..<28 {
                #expect(try await api.send(.get, "/console", headers: cookie).status == .ok)
                fixture.clock.advance(by: .seconds(25 * 60))
            }
            // 11 h 40 min in: still open. Twenty-five minutes later, past twelve hours: ended.
            #expect(try await api.send(.get, "/console", headers: cookie).status == .ok)
            fixture.clock.advance(by: .seconds(25 * 60))
            let ended = try await api.send(.get, "/console", headers: cookie)
            #expect(ended.status == .seeOther && ended.headers[.location] == "/console/sign-in")
        }
    }

    @Test(
        "strangers' guesses block an operator's name, but not in a browser the operator signed in with before"
    )
    func knownBrowserSignsInDuringABlock() async throws {
        let fixture = try await ServerFixture(backend: .sqlite)
        try await fixture.runSeeded { api in
            let password = "a long operator passphrase"
            let secret = try await Self.enrol(api, fixture, "ops.kim", password: password)
            func signIn(_ browser: PageBrowser, _ password: String) async throws -> ServerReply {
                let page = try await browser.get("/console/sign-in")
                let code = try ConsoleBrowserTests.code(secret: secret, at: fixture.clock.now())
                return try await browser.submit(
                    page,
                    to: "/console/sign-in",
                    [("name", "ops.kim"), ("password", password), ("code", code)]
                )
            }
            // The operator's own browser signs in once, and out again: it keeps the cookie
            // of a known browser, not the session.
            let own = PageBrowser(api.running)
            fixture.clock.advance(by: .seconds(30))
            _ = try await own.get("/console/sign-in")
            let secretBefore = try #require(own.cookieJar["gangway_form"])
            #expect(try await signIn(own, password).status == .seeOther)
            #expect(own.cookieJar["gangway_console_browser"] != nil)
            // The form secret is new with the session: a token seen before is of no use.
            let secretAfter = try #require(own.cookieJar["gangway_form"])
            #expect(secretAfter != secretBefore)
            let home = try await own.get("/console")
            let signedOut = try await own.post(
                "/console/sign-out",
                [("form_token", ConsoleAppsTests.formToken(of: home.text))]
            )
            #expect(signedOut.status == .seeOther, "\(signedOut.status) \(signedOut.text.prefix(300))")
            #expect(own.cookieJar["gangway_form"] != secretAfter, "and new again at the sign-out")

            // A stranger's guesses block the name everywhere else.
            fixture.clock.advance(by: .seconds(30))
            let stranger = PageBrowser(api.running)
            for _ in 1...5 {
                #expect(try await signIn(stranger, "a guessed passphrase").status == .unauthorized)
            }
            let elsewhere = PageBrowser(api.running)
            #expect(try await signIn(elsewhere, password).status == .tooManyRequests)
            // Each failed try at an operator's name is in the audit, by that name.
            let failed = try await Self.audit(api, "?limit=20").filter { $0.action == "signInFailed" }
            #expect(failed.count == 5 && failed.allSatisfy { $0.actor == "ops.kim" && $0.via == .console })
            // The known browser is counted apart, and gets in.
            let opened = try await signIn(own, password)
            #expect(opened.status == .seeOther && opened.headers[.location] == "/console", "\(opened.text.prefix(400))")
            // A stolen cookie without the password is still five tries and a block.
            let forged = PageBrowser(api.running)
            forged.setCookie("gangway_console_browser", try #require(own.cookieJar["gangway_console_browser"]))
            for _ in 1...5 {
                #expect(try await signIn(forged, "a guessed passphrase").status == .unauthorized)
            }
            #expect(try await signIn(forged, "a guessed passphrase").status == .tooManyRequests)
        }
    }

    @Test("a flood of the devices' sign-ins keeps no operator out of the console, and counts nothing against them")
    func deviceFloodLeavesTheConsole() async throws {
        // bcrypt cost 10 makes each check take long enough for the requests to overlap.
        let fixture = try await ServerFixture(over: .loopback, bcryptCost: 10) { $0.concurrentPasswordChecks = 1 }
        try await fixture.runSeeded { api in
            let password = "a long operator passphrase"
            let secret = try await Self.enrol(api, fixture, "ops.flo", password: password)
            fixture.clock.advance(by: .seconds(30))
            async let flood = api.parallelSignIns(count: 24) { index in ("nobody-\(index)", "guess", [:]) }
            try await Task.sleep(for: .milliseconds(20))
            let browser = PageBrowser(api.running)
            let page = try await browser.get("/console/sign-in")
            let opened = try await browser.submit(
                page,
                to: "/console/sign-in",
                [
                    ("name", "ops.flo"), ("password", password),
                    ("code", try ConsoleBrowserTests.code(secret: secret, at: fixture.clock.now())),
                ]
            )
            #expect(opened.status == .seeOther, "\(opened.status): \(opened.text.prefix(400))")
            #expect(try await flood.contains(.serviceUnavailable), "the devices' flood was shed")
        }
    }

    @Test(
        "a console session ends after 30 minutes without a request, and a request keeps it alive",
        arguments: Backend.available
    )
    func idleSessions(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let cookie = try await Self.consoleCookie(fixture, "ops.ida", role: .viewer)
            #expect(try await api.send(.get, "/console", headers: cookie).status == .ok)
            fixture.clock.advance(by: .seconds(29 * 60))
            #expect(try await api.send(.get, "/console", headers: cookie).status == .ok, "seen again: kept")
            fixture.clock.advance(by: .seconds(29 * 60))
            #expect(try await api.send(.get, "/console", headers: cookie).status == .ok)
            fixture.clock.advance(by: .seconds(31 * 60))
            let ended = try await api.send(.get, "/console", headers: cookie)
            #expect(ended.status == .seeOther)
            #expect(ended.headers[.location] == "/console/sign-in")

            // A page read within a minute of the last recorded request writes nothing;
            // one a minute or more later records itself.
            let token = "t" + String(repeating: "A", count: 42)
            let hash = Data(SHA256.hash(data: Data(token.utf8)))
            let storage = fixture.server.storage
            let opened = fixture.clock.now()
            try await storage.insertOperatorSession(
                OperatorSessionRecord(tokenHash: hash, operatorName: "ops.ida", createdAt: opened, lastSeenAt: opened)
            )
            fixture.clock.advance(by: .seconds(40))
            let read = try await storage.touchOperatorSession(tokenHash: hash, at: fixture.clock.now())
            #expect(read.map { abs($0.0.lastSeenAt.timeIntervalSince(opened)) < 1 } == true, "not moved")
            fixture.clock.advance(by: .seconds(30))
            let moved = fixture.clock.now()
            let touched = try await storage.touchOperatorSession(tokenHash: hash, at: moved)
            #expect(touched.map { abs($0.0.lastSeenAt.timeIntervalSince(moved)) < 1 } == true, "moved")
            fixture.clock.advance(by: .seconds(29 * 60))
            #expect(try await storage.touchOperatorSession(tokenHash: hash, at: fixture.clock.now()) != nil, "kept")
        }
    }

    @Test(
        "the audit says what changed: a lock, an unlock, a block, a new password, changed settings, nothing; what an add made",
        arguments: Backend.available
    )
    func whatChanged(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let token = try await api.signIn("alice")
            let registration = try await api.register(token: token).registrationID
            let device = "/admin/apps/checks/devices/\(registration)"
            for status in ["locked", "active", "wiped", "wiped"] {
                try await api.admin(.patch, device, json: #"{"status": "\#(status)"}"#).expect(.ok)
            }
            try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": true, "password": "an-other-pw-9"}"#)
                .expect(.ok)
            try await api.admin(.patch, "/admin/users/alice", json: #"{"blocked": false}"#).expect(.ok)
            let policy = #"{"settings": {"passwordPolicy": {"passwordPolicyMinLength": 10}}}"#
            try await api.admin(.patch, "/admin/apps/checks", json: policy).expect(.ok)
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"{"name": "Checks 2", "settings": {"passwordPolicy": {"passwordPolicyMinLength": 12}}}"#
            ).expect(.ok)
            // Saved again as it is: recorded, as changing nothing.
            try await api.admin(.patch, "/admin/apps/checks", json: #"{"name": "Checks 2"}"#).expect(.ok)
            try await api.admin(.post, "/admin/apps", json: #"{"appID": "audited", "name": "Audited"}"#)
                .expect(.created)
            try await api.admin(.post, "/admin/users", json: #"{"username": "carol", "password": "carol-pw-12"}"#)
                .expect(.created)

            let events = try await Self.audit(api, "?limit=11").reversed().map { ($0.action, $0.target, $0.detail) }
            let expected: [(String, String?, String?)] = [
                ("updateDevice", device, "status: active → locked"),
                ("updateDevice", device, "status: locked → active"),
                ("updateDevice", device, "status: active → wiped"),
                ("updateDevice", device, "nothing changed"),
                ("updateUser", "/admin/users/alice", "blocked: false → true; password set"),
                ("updateUser", "/admin/users/alice", "blocked: true → false"),
                ("updateApp", "/admin/apps/checks", "settings.passwordPolicy.passwordPolicyMinLength: 8 → 10"),
                (
                    "updateApp", "/admin/apps/checks",
                    "name: Ground checks → Checks 2; settings.passwordPolicy.passwordPolicyMinLength: 10 → 12"
                ),
                ("updateApp", "/admin/apps/checks", "nothing changed"),
                ("createApp", "/admin/apps/audited", "name: Audited"),
                ("createUser", "/admin/users/carol", "displayName: carol"),
            ]
            #expect(events.count == expected.count)
            for (event, wanted) in zip(events, expected) {
                #expect(event.0 == wanted.0 && event.1 == wanted.1 && event.2 == wanted.2, "\(event) is not \(wanted)")
            }
            #expect(!(try await api.admin(.get, "/admin/audit").text.contains("an-other-pw-9")))
        }
    }

    @Test(
        "a long change is cut in the audit, but never a security setting's: a weaker policy behind many e-mail domains"
    )
    func securityChangesNeverCut() async throws {
        try await ServerFixture(backend: .sqlite).runSeeded { api in
            let domains = (0..<60).map { #""station-\#($0)-ground-handling.airline.example""# }.joined(separator: ", ")
            try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"""
                    {"name": "\#(String(repeating: "n", count: 120))", "emailDomains": [\#(domains)],
                     "settings": {"passwordPolicy": {"passwordPolicyMinLength": 4, "passwordPolicyRetryLimit": 20}}}
                    """#
            ).expect(.ok)
            let detail = try #require(try await Self.audit(api, "?limit=1").first?.detail)
            #expect(detail.unicodeScalars.count <= 1000)
            for whole in [
                "settings.passwordPolicy.passwordPolicyMinLength: 8 → 4",
                "settings.passwordPolicy.passwordPolicyRetryLimit: 10 → 20",
            ] {
                #expect(detail.contains(whole), "\(whole) is cut or missing from: \(detail)")
            }
            #expect(detail.contains("…"), "the long parts are cut")
            #expect(detail.contains("name: Ground checks → nnn"), "a short start of each long part is kept")
        }
    }

    @Test("the writable fields of a set saved again in another order change nothing", arguments: Backend.available)
    func writableFieldsReordered(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            func rules(_ fields: String) -> String {
                #"{"settings": {"dataSettings": {"entitySets": {"tools": {"writableFields": [\#(fields)], "allowsCreation": false}}}}}"#
            }
            try await api.admin(.patch, "/admin/apps/checks", json: rules(#""status", "reading""#)).expect(.ok)
            let reordered = try await api.admin(.patch, "/admin/apps/checks", json: rules(#""reading", "status""#))
            try reordered.expect(.ok)
            #expect(reordered.text.contains(#""writableFields":["status","reading"]"#), "\(reordered.text)")
            try await api.admin(.patch, "/admin/apps/checks", json: rules(#""reading", "note""#)).expect(.ok)
            let details = try await Self.audit(api, "?limit=3").reversed().map(\.detail)
            #expect(details.count == 3)
            #expect(details.dropFirst().first == "nothing changed", "\(details)")
            #expect(details.last??.contains("note") == true, "\(details)")
            // Twice the same field is still refused, even when the set is the same.
            try await api.admin(.patch, "/admin/apps/checks", json: rules(#""reading", "reading""#))
                .expect(.badRequest)
        }
    }

    @Test("the audit keeps no secret: a password set for a user is not in it", arguments: Backend.available)
    func noSecrets(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            try await api.admin(.patch, "/admin/users/alice", json: #"{"password": "a-new-secret-pw"}"#).expect(.ok)
            let events = try await Self.audit(api)
            #expect(events.first?.action == "updateUser")
            #expect(events.first?.target == "/admin/users/alice")
            let text = try await api.admin(.get, "/admin/audit").text
            #expect(!text.contains("a-new-secret-pw"))
        }
    }
}

import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "The console's users and data: users added, given a new password, linked; changes shown with how they ended",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ConsoleUsersTests {
    @Test("an operator sets a user's attributes, one a line; a bad line is explained and kept; a viewer cannot")
    func attributes() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.ola", role: .operator)
            let page = try await browser.get("/console/users/alice")
            #expect(page.text.contains("<dt>Attributes</dt><dd>none</dd>"), "\(page.text)")
            let set = try await browser.submit(
                page,
                to: "/console/users/alice",
                [("action", "attributes"), ("attributes", "stands = 12, 14\n\nteams=ramp\n")]
            )
            try set.expect(.ok)
            #expect(set.text.contains("The attributes are set"))
            #expect(set.text.contains("<dt>Attributes</dt><dd>stands: 12, 14; teams: ramp</dd>"), "\(set.text)")
            #expect(set.text.contains(">stands=12,14\nteams=ramp</textarea>"))
            let user = try await api.admin(.get, "/admin/users/alice").decode(Components.Schemas.User.self)
            #expect(user.attributes?.additionalProperties == ["stands": ["12", "14"], "teams": ["ramp"]])
            for (typed, said) in [
                ("stands", "Each line is one attribute"), ("a=1\na=2", "Each line is one attribute"),
                ("1st=x", "field"),
            ] {
                let bad = try await browser.submit(
                    set,
                    to: "/console/users/alice",
                    [("action", "attributes"), ("attributes", typed)]
                )
                #expect(bad.status == .badRequest, "\(typed): \(bad.text)")
                #expect(bad.text.contains(said), "\(typed)")
                #expect(bad.text.contains(">\(typed.replacingOccurrences(of: "\n", with: "\n"))</textarea>"), "kept")
            }
            let cleared = try await browser.submit(
                set,
                to: "/console/users/alice",
                [("action", "attributes"), ("attributes", "")]
            )
            #expect(cleared.text.contains("<dt>Attributes</dt><dd>none</dd>"))
            let events = try await OperatorsTests.audit(api)
            #expect(events.first?.action == "updateUser" && events.first?.via == .console)
            #expect(events.contains { ($0.detail ?? "").contains("stands") })

            let viewer = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let read = try await viewer.get("/console/users/alice")
            #expect(!read.text.contains("Set the attributes"))
            let refused = try await viewer.submit(
                read,
                to: "/console/users/alice",
                [("action", "attributes"), ("attributes", "a=b")]
            )
            #expect(refused.status == .forbidden)
        }
    }

    @Test(
        "an operator adds a user who then signs in, sets a new password that ends their sessions, links and unlinks an identity"
    )
    func user() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.ola", role: .operator)
            let list = try await browser.get("/console/users")
            let weak = try await browser.submit(
                list,
                to: "/console/users",
                [("username", "carol"), ("displayName", "Carol Diaz"), ("password", "tiny7")]
            )
            #expect(weak.status == .badRequest)
            #expect(weak.text.contains(#"value="carol""#) && weak.text.contains(#"value="Carol Diaz""#), "kept")
            #expect(!weak.text.contains("tiny7"), "never the password")
            let added = try await browser.submit(
                list,
                to: "/console/users",
                [("username", "carol"), ("displayName", "Carol Diaz"), ("password", "carol-first-password")]
            )
            #expect(added.status == .seeOther)
            #expect(added.headers[.location] == "/console/users/carol")
            let page = try await browser.get("/console/users/carol")
            #expect(page.text.contains("<dd>Carol Diaz</dd>") && page.text.contains("<dd>active</dd>"))
            let token = try await api.signIn("carol", password: "carol-first-password")

            let changed = try await browser.submit(
                page,
                to: "/console/users/carol",
                [("action", "password"), ("password", "carol-second-password")]
            )
            try changed.expect(.ok)
            #expect(changed.text.contains("The password is set"))
            #expect(try await api.send(.get, "/apps/checks/settings", token: token).status == .unauthorized)
            _ = try await api.signIn("carol", password: "carol-second-password")

            let issuer = "https://login.example.com"
            let linked = try await browser.submit(
                page,
                to: "/console/users/carol",
                [("action", "link"), ("issuer", issuer), ("subject", "c-123")]
            )
            #expect(linked.text.contains(#"<td data-label="Subject">c-123</td>"#))
            let twice = try await browser.submit(
                page,
                to: "/console/users/carol",
                [("action", "link"), ("issuer", issuer), ("subject", "c-123")]
            )
            #expect(twice.status == .conflict)
            let bad = try await browser.submit(
                page,
                to: "/console/users/carol",
                [("action", "link"), ("issuer", "ftp://x"), ("subject", "typed")]
            )
            #expect(bad.status == .badRequest && bad.text.contains(#"value="typed""#), "what was typed is kept")
            let unlinked = try await browser.submit(
                linked,
                to: "/console/users/carol",
                [("action", "unlink"), ("issuer", issuer), ("subject", "c-123")]
            )
            #expect(unlinked.text.contains("None is linked."))
            #expect(try await browser.get("/console/users/nobody").status == .notFound)

            let events = try await OperatorsTests.audit(api)
            #expect(events.prefix(4).map(\.action) == ["unlinkIdentity", "linkIdentity", "updateUser", "createUser"])
            #expect(events[2].detail == "password set")
            #expect(events[3].target == "/admin/users/carol")
            #expect(events.prefix(4).allSatisfy { $0.actor == "ops.ola" && $0.via == .console })
            #expect(!fixture.logs.text.contains("carol-second-password"))

            let viewer = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let read = try await viewer.get("/console/users/carol")
            #expect(!read.text.contains("Set the password"))
            let refused = try await viewer.submit(
                read,
                to: "/console/users/carol",
                [("action", "password"), ("password", "a-viewer-password")]
            )
            #expect(refused.status == .forbidden)
        }
    }

    @Test(
        "the data page shows each change's author and carrier, a conflict's two values, a refusal's reason, and the set"
    )
    func data() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let (alice, _) = try await ChangeUploadTests.prepared(api)
            try await api.admin(
                .put,
                "/admin/apps/checks/data/checks/F-GKXA-fuel",
                json: #"{"fields": {"aircraft": "A320 F-GKXA", "status": "open", "reading": "8.0 bar"}}"#
            ).expect(.ok)
            _ = try await ChangeUploadTests.upload(
                [alice.change(sequence: 1, ["reading": "8.2 bar", "status": "done"])],
                by: alice,
                api: api
            )
            _ = try await ChangeUploadTests.upload(
                [alice.change(sequence: 2, ["owner\u{1B}[31m": "x"])],
                by: alice,
                api: api
            )
            let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let page = try await browser.get("/console/data?app=checks")
            try page.expect(.ok)
            #expect(
                page.text.contains(
                    #"<td data-label="Entity">checks/F-GKXA-fuel</td><td data-label="Author">alice</td><td data-label="Carried by"></td><td data-label="Outcome">conflict"#
                )
            )
            #expect(page.text.contains("reading: the server kept “8.0 bar”, the device sent “8.2 bar”"))
            #expect(page.text.contains(#"<td data-label="Outcome">rejected<br>"#))
            #expect(page.text.contains("INVALID_CHANGE: Field names are a letter"))
            #expect(page.text.contains("<h2>Entities of checks</h2>"))
            #expect(page.text.contains("reading = 8.0 bar; status = done"))
            let conflicts = try await browser.get("/console/data?app=checks&outcome=conflict")
            #expect(!conflicts.text.contains(#"<td data-label="Outcome">rejected"#))
            #expect(conflicts.text.contains(#"<option value="conflict" selected>"#))
        }
    }

    /// The entities of the set `checks`, as the admin API lists them.
    static func entities(_ api: API) async throws -> [Components.Schemas.Entity] {
        try await api.admin(.get, "/admin/apps/checks/data/checks").decode(Components.Schemas.EntityList.self).entities
    }

    @Test(
        "an admin puts and deletes entities and sets what devices may change in a set; a viewer may not; mistakes explained, what was typed kept"
    )
    func writeData() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let viewer = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let read = try await viewer.get("/console/data?app=checks&set=checks")
            #expect(!read.text.contains("Put the entity") && !read.text.contains(">Delete<"))
            let refused = try await viewer.post(
                "/console/data",
                [
                    ("form_token", ConsoleAppsTests.formToken(of: read.text)), ("action", "put"), ("app", "checks"),
                    ("set", "checks"), ("id", "F-X"), ("fields", "status = open"),
                ]
            )
            #expect(refused.status == .forbidden)

            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console/data?app=checks&set=checks")
            #expect(page.text.contains("Put the entity"))
            let put = try await admin.submit(
                page,
                to: "/console/data",
                [
                    ("action", "put"), ("id", "F-GTAJ-fuel"),
                    ("fields", "aircraft = A321 F-GTAJ\n\nstatus=open\nnote = a = b"),
                ]
            )
            #expect(put.status == .seeOther)
            #expect(put.headers[.location] == "/console/data?app=checks&set=checks&done=put")
            let entity = try #require(try await Self.entities(api).first { $0.id == "F-GTAJ-fuel" })
            #expect(
                entity.fields.additionalProperties == ["aircraft": "A321 F-GTAJ", "status": "open", "note": "a = b"]
            )

            for (fields, status, message) in [
                (
                    [("action", "put"), ("id", "F-Y"), ("fields", "status open")], HTTPResponse.Status.badRequest,
                    "name = value"
                ),
                ([("action", "put"), ("id", "F-Y"), ("fields", "a = 1\na = 2")], .badRequest, "given twice"),
                ([("action", "put"), ("id", "-bad"), ("fields", "a = 1")], .badRequest, "entityID"),
                (
                    [("action", "rules"), ("set", "checks"), ("writableFields", "status, 9lives")], .badRequest,
                    "9lives"
                ),
                ([("action", "paint")], .badRequest, "not something the console does"),
            ] {
                let wrong = try await admin.submit(page, to: "/console/data", fields)
                #expect(wrong.status == status, "\(fields)")
                #expect(wrong.text.contains(message), "\(fields): \(wrong.text)")
            }
            let kept = try await admin.submit(
                page,
                to: "/console/data",
                [("action", "put"), ("id", "F-Y"), ("fields", "status open")]
            )
            #expect(kept.text.contains(#"value="F-Y""#) && kept.text.contains(">status open</textarea>"), "kept")

            let rules = try await admin.submit(
                page,
                to: "/console/data",
                [
                    ("action", "rules"), ("set", "checks"), ("writableFields", "status note, reading"),
                    ("allowsCreation", "on"),
                ]
            )
            #expect(rules.status == .seeOther)
            let app = try await api.admin(.get, "/admin/apps/checks").decode(Components.Schemas.App.self)
            let rule = try #require(app.settings.dataSettings?.entitySets?.additionalProperties["checks"])
            #expect(Set(rule.writableFields) == ["status", "note", "reading"])
            #expect(rule.allowsCreation)
            let shown = try await admin.get("/console/data?app=checks&set=checks")
            #expect(shown.text.contains(#"id="allowsCreation" name="allowsCreation" checked"#))

            let asked = try await admin.submit(
                shown,
                to: "/console/data",
                [("action", "delete"), ("set", "checks"), ("id", "F-GTAJ-fuel")]
            )
            #expect(asked.status == .ok && asked.text.contains("Delete F-GTAJ-fuel?"))
            #expect(try await Self.entities(api).contains { $0.id == "F-GTAJ-fuel" }, "asked first, nothing done")
            let deleted = try await admin.submit(asked, to: "/console/data", [])
            #expect(deleted.status == .seeOther)
            #expect(try await Self.entities(api).allSatisfy { $0.id != "F-GTAJ-fuel" })
            let gone = try await admin.submit(
                shown,
                to: "/console/data",
                [("action", "delete"), ("set", "checks"), ("id", "F-GTAJ-fuel"), ("confirmed", "yes")]
            )
            #expect(gone.status == .notFound)

            let events = try await OperatorsTests.audit(api)
            #expect(events.prefix(3).map(\.action) == ["deleteEntity", "updateApp", "putEntity"])
            #expect(events.prefix(3).allSatisfy { $0.actor == "ops.ada" && $0.via == .console })
        }
    }

    @Test(
        "an admin declares, changes and removes a set's schema on the data page; a viewer sees it; refusals keep the text"
    )
    func schemaOnTheDataPage() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            try api.expectStatus(
                try await api.admin(
                    .put,
                    "/admin/apps/checks/data/checks/F-1",
                    json: #"{"fields": {"status": "open", "psi": "31"}}"#
                ),
                .created
            )
            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console/data?app=checks&set=checks")
            #expect(page.text.contains("No schema: the set takes any fields, as text."))
            let saved = try await admin.submit(
                page,
                to: "/console/data",
                [
                    ("action", "schema"), ("set", "checks"),
                    ("schema", "status:text:required:indexed\n\n psi : integer \n"),
                ]
            )
            #expect(saved.status == .seeOther, "\(saved.text)")
            #expect(saved.headers[.location] == "/console/data?app=checks&set=checks&done=schema")
            let schema = try await api.admin(.get, "/admin/apps/checks/schemas/checks").decode(
                Components.Schemas.EntitySchema.self
            )
            #expect(schema.fields.map(\.name) == ["status", "psi"] && schema.fields[0].indexed == true)

            let shown = try await admin.get("/console/data?app=checks&set=checks&done=schema")
            #expect(shown.text.contains("Saved the set&#39;s schema") || shown.text.contains("Saved the set's schema"))
            #expect(shown.text.contains(#"<td data-label="Type">integer</td>"#))
            #expect(shown.text.contains(">status:text:required:indexed\npsi:integer</textarea>"))

            for (text, message) in [
                ("status:text\npsi:money", "is not a field type"),
                (
                    "status:text:required\npsi:boolean",
                    "would not fit the schema; the first, F-1: psi in checks is true or false."
                ),
                ("status:text\nstatus:integer", "declared twice"),
            ] {
                let refused = try await admin.submit(
                    shown,
                    to: "/console/data",
                    [("action", "schema"), ("set", "checks"), ("schema", text)]
                )
                #expect([.badRequest, .conflict].contains(refused.status), "\(text)")
                #expect(refused.text.contains(message), "\(text): \(refused.text)")
                #expect(refused.text.contains(">\(text)</textarea>"), "the typed schema is kept")
            }

            let viewer = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let read = try await viewer.get("/console/data?app=checks&set=checks")
            #expect(read.text.contains(#"<td data-label="Field">psi</td>"#) && !read.text.contains("Save the schema"))
            let forbidden = try await viewer.post(
                "/console/data",
                [
                    ("form_token", ConsoleAppsTests.formToken(of: read.text)), ("action", "unschema"),
                    ("app", "checks"),
                    ("set", "checks"),
                ]
            )
            #expect(forbidden.status == .forbidden)

            let removed = try await admin.submit(
                shown,
                to: "/console/data",
                [("action", "unschema"), ("set", "checks")]
            )
            #expect(removed.status == .seeOther)
            #expect(try await api.admin(.get, "/admin/apps/checks/schemas/checks").code == "SCHEMA_NOT_FOUND")
            let events = try await OperatorsTests.audit(api)
            let done = events.filter { $0.actor == "ops.ada" && $0.via == .console }
            #expect(done.prefix(2).map(\.action) == ["deleteEntitySchema", "putEntitySchema"])
            #expect(events.contains { $0.actor == "ops.vic" && $0.action == "refused" }, "the viewer's try is audited")
        }
    }

    @Test(
        "logs are filtered by user, level and time by the database, in the API and on the page; control characters shown escaped",
        arguments: Backend.available
    )
    func logs(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let start = Date(timeIntervalSince1970: 1_795_320_000)
            let levels = ["debug", "info", "warning", "error"]
            let records = (0..<8).map { index in
                LogRecord(
                    appID: "checks",
                    username: index.isMultiple(of: 2) ? "alice" : "bob",
                    deviceID: "device-\(index % 2)",
                    time: start.addingTimeInterval(Double(index) * 3600),
                    level: levels[index % 4],
                    message: index == 6 ? "sync failed\u{1B}[31m at step \(index)" : "entry \(index)",
                    source: "sync",
                    receivedAt: fixture.clock.now()
                )
            }
            let retention = LogRetention(
                entriesPerDevice: 100,
                entriesPerUser: 100,
                entriesPerApp: 100,
                receivedAfter: fixture.clock.now().addingTimeInterval(-60)
            )
            try await fixture.server.storage.insertLogs(records, retention: retention)
            func messages(_ query: String) async throws -> [String] {
                let reply = try await api.admin(.get, "/admin/apps/checks/logs?\(query)")
                try reply.expect(.ok)
                return try reply.decode([Components.Schemas.StoredLogEntry].self).map(\.message)
            }
            #expect(try await messages("user=bob") == ["entry 7", "entry 5", "entry 3", "entry 1"])
            #expect(try await messages("level=warning").count == 4, "warning and error")
            #expect(
                try await messages("user=alice&level=warning") == ["sync failed\u{1B}[31m at step 6", "entry 2"],
                "alice's warnings"
            )
            #expect(
                try await messages("since=2026-11-22T08:00:00Z&until=2026-11-22T10:00:00Z") == ["entry 5", "entry 4"]
            )
            #expect(try await messages("user=%00").isEmpty, "no user's name holds a control character")
            for bad in ["user=", "level=loud", "since=yesterday"] {
                #expect(try await api.admin(.get, "/admin/apps/checks/logs?\(bad)").status == .badRequest, "\(bad)")
            }

            let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let page = try await browser.get("/console/logs?app=checks&user=alice&level=warning")
            try page.expect(.ok)
            #expect(page.text.contains(#"<td data-label="Level">warning</td>"#))
            #expect(!page.text.contains("\u{1B}"), "the escape character is not sent to the browser")
            #expect(page.text.contains("sync failed\\u{1B}[31m at step 6"), "\(page.text)")
            #expect(!page.text.contains("entry 7"))
            let timed = try await browser.get("/console/logs?app=checks&since=2026-11-22T08:00&until=2026-11-22T10:00")
            #expect(timed.text.contains("entry 4") && timed.text.contains("entry 5") && !timed.text.contains("entry 3"))
            let wrong = try await browser.get("/console/logs?app=checks&since=soon")
            #expect(wrong.status == .badRequest && wrong.text.contains("From: give a date and time"))
        }
    }

    @Test("logs page a hundred at a time, newest received first and back; errors stand out; devices by their name")
    func logPages() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let alice = try await ChangeUploadTests.author("alice", api: api)
            let device = try #require(
                try await fixture.server.storage.device(appID: "checks", registrationID: alice.registrationID)
            )
            let start = fixture.clock.now().addingTimeInterval(-3_600)
            // Received in order, made on the device in another order: the page follows
            // the order they arrived in, as it says.
            let records = (0..<250).map { (index: Int) -> LogRecord in
                let made: TimeInterval = Double((index * 7) % 250)
                return LogRecord(
                    appID: "checks",
                    username: "alice",
                    deviceID: device.deviceID,
                    time: start.addingTimeInterval(made),
                    level: index % 50 == 0 ? "error" : "info",
                    message: "entry \(index)",
                    source: "sync",
                    receivedAt: start.addingTimeInterval(Double(index))
                )
            }
            let retention = LogRetention(
                entriesPerDevice: 1_000,
                entriesPerUser: 1_000,
                entriesPerApp: 1_000,
                receivedAfter: start.addingTimeInterval(-60)
            )
            try await fixture.server.storage.insertLogs(records, retention: retention)
            let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            var seen: [Int] = []
            var path: String? = "/console/logs?app=checks"
            var pages = 0
            while let next = path {
                let page = try await browser.get(next)
                try page.expect(.ok)
                pages += 1
                seen += page.text.matches(of: /<td data-label="Message">entry (\d+)<\/td>/).compactMap { Int($0.1) }
                #expect(page.text.contains("Stand 12 tablet <span class=\"quiet\">(\(device.deviceID))</span>"))
                #expect(pages == 1 || page.text.contains(#"<a href="/console/logs?app=checks">Newest entries</a>"#))
                path = page.text.firstMatch(of: /<a href="([^"]+)" rel="next">Older entries<\/a>/)
                    .map { String($0.1).replacingOccurrences(of: "&amp;", with: "&") }
                if pages == 1 {
                    #expect(page.text.contains(#"<tr class="severity-error"><td data-label="Received">"#))
                    #expect(page.text.contains("The newest entries, newest received first, 100 a page"))
                }
            }
            #expect(pages == 3)
            #expect(seen == Array((0..<250).reversed()), "each entry once, newest received first")
            // The API pages alike, by the entry's ID.
            let first = try await api.admin(.get, "/admin/apps/checks/logs?limit=2")
                .decode([Components.Schemas.StoredLogEntry].self)
            let last = try #require(first.last?.id)
            let then = try await api.admin(.get, "/admin/apps/checks/logs?limit=2&before=\(last)")
                .decode([Components.Schemas.StoredLogEntry].self)
            #expect((first + then).map(\.message) == ["entry 249", "entry 248", "entry 247", "entry 246"])
            #expect(try await api.admin(.get, "/admin/apps/checks/logs?before=0").status == .badRequest)
            // Judged whatever the other parameters: a user no one can be matches nothing,
            // but a bad `before` is still refused.
            #expect(
                try await api.admin(.get, "/admin/apps/checks/logs?user=a%17b&before=-4437").status == .badRequest
            )
        }
    }
}

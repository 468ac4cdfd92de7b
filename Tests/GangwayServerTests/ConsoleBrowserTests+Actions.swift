import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

/// The console's remaining actions in a real browser, each done as an admin does it with
/// the keyboard and the page's own controls, and checked in the server's state and in the
/// audit: apps, sign-in, users, operators, data and logs. (Signing in, users' blocks,
/// devices, activation and the shared-device story have their own tests.)
extension ConsoleBrowserTests {
    /// The audit's newest event, once it is `action` and newer than `after`.
    static func audited(
        _ api: API,
        _ action: String,
        after previous: Int64
    ) async throws -> Components.Schemas.AuditEvent {
        for _ in 0..<200 {
            if let newest = try await OperatorsTests.audit(api, "?limit=1").first, newest.id > previous,
                newest.action == action
            {
                return newest
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let newest = try await OperatorsTests.audit(api, "?limit=1").first
        throw TestServerError("the audit's newest event is \(newest?.action ?? "none"), not \(action)")
    }

    /// The audit's newest event's ID.
    static func newestEvent(_ api: API) async throws -> Int64 {
        try await OperatorsTests.audit(api, "?limit=1").first?.id ?? 0
    }

    @Test(
        "an admin does the rest in the browser: adds an app, sets it, its sign-in and its destinations, adds a user, sets a password, links and unlinks identities, manages an operator, writes data, filters logs"
    )
    func adminActions() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            let enrolment = try await OperatorsTests.add(api, "ops.ada", role: "admin")
            _ = try await OperatorsTests.add(api, "ops.ben", role: "viewer")
            let server = api.running.url.absoluteString
            let storage = fixture.server.storage
            try await HeadlessBrowser.using { browser in
                try await Self.enrol(browser, enrolment, at: fixture.clock.now())
                var last = try await Self.newestEvent(api)
                func done(_ action: String) async throws {
                    let event = try await Self.audited(api, action, after: last)
                    #expect(event.actor == "ops.ada" && event.via == .console, "\(action)")
                    last = event.id
                }

                // An app, its settings and how its people sign in.
                try await browser.open("\(server)/console/apps")
                _ = try await browser.source(once: "Add the app")
                try await browser.type("fuel", into: try await browser.element("#appID"))
                try await browser.type("Fuel", into: try await browser.element("#name"))
                try await browser.type("fuel.example\u{E007}", into: try await browser.element("#emailDomains"))
                try await done("createApp")
                #expect(try await storage.app(id: "fuel")?.name == "Fuel")
                try await browser.open("\(server)/console/apps/fuel")
                _ = try await browser.source(once: "Require a passcode")
                try await browser.type("2.0\u{E007}", into: try await browser.element("#minimumVersion"))
                try await done("updateApp")
                #expect(try await storage.app(id: "fuel")?.minimumVersion == "2.0")
                try await browser.open("\(server)/console/apps/fuel/sign-in")
                _ = try await browser.source(once: "How people sign in")
                try await browser.click(try await browser.element("#type-oauth2"))
                try await browser.type("com.example.fuel:/callback", into: try await browser.element("#redirectURIs"))
                try await browser.click(try await browser.element("main button[type=submit]"))
                try await done("setAppAuthentication")
                let authentication = try #require(try await storage.app(id: "fuel")?.authentication)
                #expect(authentication.type == .oauth2)
                #expect(authentication.redirectURIs == ["com.example.fuel:/callback"])

                // Its destinations: one added with the form's keyboard, then removed.
                try await browser.open("\(server)/console/apps/fuel/destinations")
                _ = try await browser.source(once: "No destination yet.")
                try await browser.type("orders", into: try await browser.element("#name"))
                try await browser.type(
                    "https://orders.example.com/api\u{E007}",
                    into: try await browser.element("#url")
                )
                try await done("putDestination")
                #expect(
                    try await storage.destination(appID: "fuel", name: "orders")?.url
                        == "https://orders.example.com/api"
                )
                _ = try await browser.source(once: "the signed-in person")
                try await browser.click(try await browser.element("button[aria-label='Remove orders']"))
                _ = try await browser.source(once: "Remove the destination orders?")
                try await browser.click(try await browser.element("button.danger"))
                try await done("removeDestination")
                #expect(try await storage.destination(appID: "fuel", name: "orders") == nil)

                // A user: added, a new password, an identity linked and unlinked.
                try await browser.open("\(server)/console/users")
                _ = try await browser.source(once: "<h1>Users</h1>")
                try await browser.type("erin", into: try await browser.element("#username"))
                try await browser.type("Erin Fry", into: try await browser.element("#displayName"))
                try await browser.type("erin-password-1\u{E007}", into: try await browser.element("#new-password"))
                try await done("createUser")
                #expect(try await api.signInReply("erin", password: "erin-password-1").status == .created)
                try await browser.open("\(server)/console/users/erin")
                _ = try await browser.source(once: "User erin")
                try await browser.type("erin-password-2\u{E007}", into: try await browser.element("#password"))
                try await done("updateUser")
                #expect(try await api.signInReply("erin", password: "erin-password-2").status == .created)
                try await browser.open("\(server)/console/users/erin")
                _ = try await browser.source(once: "User erin")
                try await browser.type("https://login.example.com", into: try await browser.element("#issuer"))
                try await browser.type("s-erin\u{E007}", into: try await browser.element("#subject"))
                try await done("linkIdentity")
                #expect(
                    try await storage.identityLink(issuer: "https://login.example.com", subject: "s-erin", kind: .user)
                        != nil
                )
                try await browser.open("\(server)/console/users/erin")
                _ = try await browser.source(once: "s-erin")
                try await browser.click(try await browser.element("form:has(input[value=unlink]) button"))
                try await done("unlinkIdentity")
                #expect(
                    try await storage.identityLink(issuer: "https://login.example.com", subject: "s-erin", kind: .user)
                        == nil
                )

                // Another operator: a new role, a new link, an identity, removed.
                try await browser.open("\(server)/console/operators")
                _ = try await browser.source(once: "<h1>Operators</h1>")
                _ = try await browser.evaluate("document.getElementById('role-ops.ben').value = 'operator'")
                try await browser.click(try await browser.element("button[value=role]"))
                try await done("updateOperator")
                #expect(try await storage.operatorRecord(named: "ops.ben")?.role == .operator)
                try await browser.click(try await browser.element("button[value=enrol]"))
                _ = try await browser.source(once: "Give this link to ops.ben alone")
                try await done("enrolOperator")
                try await browser.type("https://login.example.com", into: try await browser.element("#link-issuer"))
                try await browser.type("s-ben\u{E007}", into: try await browser.element("#link-subject"))
                try await done("linkOperatorIdentity")
                #expect(try await storage.operatorRecord(issuer: "https://login.example.com", subject: "s-ben") != nil)
                _ = try await browser.source(once: #"<td data-label="Subject">s-ben</td>"#)
                try await browser.click(try await browser.element("button[value=unlink]"))
                try await done("unlinkOperatorIdentity")
                #expect(try await storage.operatorRecord(issuer: "https://login.example.com", subject: "s-ben") == nil)
                _ = try await browser.source(once: "No operator signs in through a provider.")
                try await browser.click(try await browser.element("button[value=remove]"))
                _ = try await browser.source(once: "Remove the operator ops.ben?")
                try await browser.click(try await browser.element("button.danger"))
                try await done("removeOperator")
                #expect(try await storage.operatorRecord(named: "ops.ben") == nil)

                // The app's data: an entity put and deleted, what devices may change.
                try await browser.open("\(server)/console/data?app=checks&set=checks")
                _ = try await browser.source(once: "Put the entity")
                try await browser.type("c-900", into: try await browser.element("#id"))
                try await browser.type("status = open", into: try await browser.element("#fields"))
                try await browser.click(try await browser.element("button[value=put]"))
                try await done("putEntity")
                let put = try await storage.entities(appID: "checks", entitySet: "checks").first { $0.id == "c-900" }
                #expect(put?.fields == ["status": "open"])
                try await browser.open("\(server)/console/data?app=checks&set=checks")
                _ = try await browser.source(once: "c-900")
                try await browser.click(
                    try await browser.element("form:has(input[value='c-900']) button[value=delete]")
                )
                _ = try await browser.source(once: "Delete c-900?")
                try await browser.click(try await browser.element("button.danger"))
                try await done("deleteEntity")
                #expect(
                    try await storage.entities(appID: "checks", entitySet: "checks").contains { $0.id == "c-900" }
                        == false
                )
                try await browser.open("\(server)/console/data?app=checks&set=checks")
                _ = try await browser.source(once: "Save what devices may change")
                let writable = try await browser.element("#writableFields")
                try await browser.clear(writable)
                try await browser.type("status, note", into: writable)
                try await browser.click(try await browser.element("button[value=rules]"))
                try await done("updateApp")
                let rules = try await api.admin(.get, "/admin/apps/checks")
                #expect(
                    rules.text.contains(#""checks":{"allowsCreation":false,"writableFields":["status","note"]}"#),
                    "\(rules.text)"
                )

                // The set's data source: shown, read on demand, its failure said.
                try await browser.open("\(server)/console/data?app=checks&set=checks")
                _ = try await browser.source(once: "Data source of checks")
                _ = try await browser.source(once: "None: the set is written by the admin")
                try await api.admin(
                    .put,
                    "/admin/apps/checks/destinations/erp",
                    json: #"{"url": "http://127.0.0.1:9/odata"}"#
                )
                .expect(.created)
                try await api.admin(
                    .put,
                    "/admin/apps/checks/data-sources/checks",
                    json: #"{"destination": "erp", "path": "/Checks", "everySeconds": 3600}"#
                ).expect(.created)
                // Read here, or by the server's own loop, which may claim it first.
                var failed: String?
                for _ in 0..<500 where failed == nil {
                    _ = try await fixture.server.pullDueDataSources()
                    failed = try await storage.dataSource(appID: "checks", entitySet: "checks")?.state.last?.error
                    if failed == nil { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(failed == "The backend could not be reached.")
                try await browser.open("\(server)/console/data?app=checks&set=checks")
                _ = try await browser.source(once: "erp /Checks, keyed by ID")
                _ = try await browser.source(once: "The backend could not be reached.")
                let readBefore = try await storage.dataSource(appID: "checks", entitySet: "checks")?.state.run ?? 0
                try await browser.click(try await browser.element("button[value=pullFull]"))
                try await done("pullDataSource")
                _ = try await browser.source(once: "Asked for a read of the whole set")
                // Asked for: due, or already taken by the server's loop.
                let asked = try #require(try await storage.dataSource(appID: "checks", entitySet: "checks"))
                #expect((asked.state.fullRequested && asked.state.nextRunAt != nil) || asked.state.run > readBefore)

                // A device's change waiting for the backend: sent again, then discarded.
                try await api.admin(
                    .put,
                    "/admin/apps/checks/data-sources/checks",
                    json: #"{"destination": "erp", "path": "/Checks", "deliversChanges": true}"#
                ).expect(.ok)
                try await api.admin(
                    .patch,
                    "/admin/apps/checks",
                    json: #"{"settings": {"dataSettings": {"entitySets": {"checks": "#
                        + #"{"writableFields": ["status"], "allowsCreation": true}}}}}"#
                ).expect(.ok)
                let bob = try await ChangeUploadTests.author("bob", device: "bob-tablet", api: api)
                let waiting = bob.change(sequence: 1, base: nil, entity: "c-001", ["status": "done"])
                #expect(try await ChangeUploadTests.upload([waiting], by: bob, api: api).first?.outcome == .held)
                let changeID = waiting.change.id.uuidString.lowercased()
                try await browser.open("\(server)/console/data?app=checks&set=checks")
                _ = try await browser.source(once: "waiting for the company's backend")
                _ = try await browser.source(once: changeID)
                try await browser.click(try await browser.element("button[value=retryDelivery]"))
                try await done("retryDelivery")
                _ = try await browser.source(once: "goes to the company's backend again now")
                try await browser.click(try await browser.element("button[value=discardDelivery]"))
                _ = try await browser.source(once: "Discard the change \(changeID)?")
                try await browser.click(try await browser.element("button.danger"))
                try await done("discardDelivery")
                #expect(try await storage.deliveries(appID: "checks", limit: 10).isEmpty)
                let discarded = try await ChangeUploadTests.upload([waiting], by: bob, api: api).first
                #expect(discarded?.original == .rejected && discarded?.rejection?.code == "DISCARDED")

                // The logs, filtered by user and level: the page keeps the filter.
                try await browser.open("\(server)/console/logs")
                _ = try await browser.source(once: "<h1>Logs</h1>")
                _ = try await browser.evaluate("document.getElementById('level').value = 'error'")
                try await browser.type("alice\u{E007}", into: try await browser.element("#user"))
                _ = try await browser.source(once: "value=\"alice\"")
                let url = try await browser.currentURL()
                #expect(url.contains("user=alice") && url.contains("level=error"), "\(url)")
            }
        }
    }
}

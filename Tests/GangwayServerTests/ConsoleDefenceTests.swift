import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import HTTPTypes
import Testing

/// Each of the console's defences on its own: with any one of them gone (a role check, the
/// form token's comparison), a test here fails.
@Suite("The console's defences, each on its own: roles, and forms only from the console's own page", .servingTurn)
struct ConsoleDefenceTests {
    /// Every form the console takes from a signed-in operator, with what would change
    /// something for an admin. `{registration}` is alice's registration.
    static let actions: [(path: String, fields: [(String, String)])] = [
        ("/console/users", [("username", "carol"), ("displayName", "Carol"), ("password", "carol-password-1")]),
        ("/console/users/alice", [("action", "block")]),
        ("/console/users/alice", [("action", "revoke")]),
        ("/console/users/alice", [("action", "password"), ("password", "a-new-password-1")]),
        ("/console/devices/{registration}", [("app", "checks"), ("action", "lock")]),
        ("/console/devices/{registration}", [("app", "checks"), ("action", "wipe")]),
        ("/console/apps", [("appID", "fuel"), ("name", "Fuel")]),
        ("/console/apps/checks", [("name", "Renamed")]),
        ("/console/apps/checks/activation", [("days", "7")]),
        ("/console/apps/checks/sign-in", [("type", "basic")]),
        (
            "/console/apps/checks/destinations",
            [
                ("action", "put"), ("name", "orders"), ("url", "https://orders.example.com"),
                ("authentication", "identity"),
            ]
        ),
        ("/console/operators", [("name", "ops.new"), ("role", "admin")]),
        ("/console/operators/ops.other", [("action", "role"), ("role", "admin")]),
        ("/console/operators/ops.other", [("action", "remove")]),
        ("/console/data", [("app", "checks"), ("set", "checks"), ("action", "delete"), ("key", "F-GKXA-fuel")]),
    ]

    /// The audit's events, newest first.
    static func auditCount(_ api: API) async throws -> Int {
        try await OperatorsTests.audit(api, "?limit=500").count
    }

    static func registration(_ api: API) async throws -> String {
        let token = try await api.signIn("alice")
        return try await api.register(token: token).registrationID
    }

    @Test("a viewer's every console action is refused with 403, nothing is done, and each refusal is audited")
    func viewerActsOnNothing() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let registration = try await Self.registration(api)
            _ = try await OperatorsTests.consoleCookie(fixture, "ops.other", role: .viewer)
            let viewer = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let token = ConsoleAppsTests.formToken(of: try await viewer.get("/console").text)
            #expect(!token.isEmpty)
            let before = try await Self.auditCount(api)
            for (path, fields) in Self.actions {
                let path = path.replacingOccurrences(of: "{registration}", with: registration)
                let refused = try await viewer.post(path, [("form_token", token)] + fields)
                #expect(refused.status == .forbidden, "\(path) \(fields): \(refused.status)")
                // The refusal is in the audit, as the viewer's, saying what was asked.
                let newest = try await OperatorsTests.audit(api, "?limit=1").first
                #expect(newest?.action == "refused" && newest?.actor == "ops.vic", "\(path) \(fields)")
                #expect(newest?.detail?.contains("role; the operator is a viewer") == true, "\(path)")
            }
            // One event per refusal, and nothing else: no viewer's action was done.
            let events = try await OperatorsTests.audit(api, "?limit=500")
            #expect(events.count == before + Self.actions.count, "a viewer's action was done")
            #expect(events.prefix(Self.actions.count).allSatisfy { $0.action == "refused" })
            let devices = try await api.admin(.get, "/admin/apps/checks/devices").decode(
                [Components.Schemas.Device].self
            )
            #expect(devices.first { $0.registrationID == registration }?.status == .active)
            #expect(try await api.admin(.get, "/admin/users/alice").json["blocked"] as? Bool == false)
        }
    }

    /// The start of the result line each irreversible action's page shows after it.
    static let results = [
        "updateDevice": "Registration ",
        "updateUser": "Blocked alice",
        "revokeUserSessions": "Ended alice",
        "removeDestination": "Removed the destination",
        "removeOperator": "Removed the operator",
        "deleteEntity": "Deleted the entity",
    ]

    @Test(
        "every action that cannot be undone asks first, saying what; only the answer from that page acts; the page after says what was done"
    )
    func irreversibleActionsAskFirst() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let registration = try await Self.registration(api)
            _ = try await OperatorsTests.consoleCookie(fixture, "ops.other", role: .viewer)
            try await api.admin(
                .put,
                "/admin/apps/checks/destinations/orders",
                json: #"{"url": "https://orders.example.com"}"#
            ).expect(.created)
            try await api.admin(.put, "/admin/apps/checks/data/checks/c-1", json: #"{"fields": {"status": "open"}}"#)
                .expect(.created)
            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let token = ConsoleAppsTests.formToken(of: try await admin.get("/console").text)
            let irreversible: [(String, [(String, String)], String)] = [
                ("/console/devices/\(registration)", [("app", "checks"), ("action", "wipe")], "updateDevice"),
                ("/console/users/alice", [("action", "block")], "updateUser"),
                ("/console/users/alice", [("action", "revoke")], "revokeUserSessions"),
                ("/console/apps/checks/destinations", [("action", "remove"), ("name", "orders")], "removeDestination"),
                ("/console/operators/ops.other", [("action", "remove")], "removeOperator"),
                (
                    "/console/data",
                    [("app", "checks"), ("set", "checks"), ("action", "delete"), ("id", "c-1")], "deleteEntity"
                ),
            ]
            for (path, fields, operation) in irreversible {
                let before = try await Self.auditCount(api)
                let asked = try await admin.post(path, [("form_token", token)] + fields)
                #expect(asked.status == .ok, "\(path) \(fields)")
                #expect(asked.text.contains(#"<button type="submit" class="danger">"#), "\(path): a danger button")
                #expect(asked.text.contains(#"class="cancel""#), "\(path): a way back")
                #expect(try await Self.auditCount(api) == before, "\(path) \(fields): done before it was confirmed")
                let done = try await admin.submit(asked, to: path, [])
                #expect(done.status == .seeOther || done.status == .ok, "\(path): \(done.status)")
                // The page the action leads back to says what was done.
                if let said = Self.results[operation] {
                    let location = try #require(done.headers[.location], "\(path): no way back")
                    let back = try await admin.get(location)
                    #expect(back.text.contains(#"<p class="notice" role="status">"# + said), "\(location)")
                }
                let newest = try await OperatorsTests.audit(api, "?limit=1").first
                #expect(
                    newest?.action == operation && newest?.actor == "ops.ada",
                    "\(path): \(String(describing: newest))"
                )
            }
            // Turning off the data kept at a passcode reset destroys every recovery secret:
            // asked first too, and only that; the rest of the settings form saves at once.
            let settings = try await admin.get("/console/apps/checks")
            var fields = ConsoleAppsTests.controls(of: settings.text)
            #expect(fields["passcodeResetKeepsData"] == "on")
            fields["passcodeResetKeepsData"] = nil
            let before = try await Self.auditCount(api)
            let asked = try await admin.submit(settings, to: "/console/apps/checks", fields.map { ($0.key, $0.value) })
            #expect(asked.status == .ok && asked.text.contains("Turn off keeping data at a passcode reset?"))
            #expect(try await Self.auditCount(api) == before)
            let saved = try await admin.submit(asked, to: "/console/apps/checks", [])
            try saved.expect(.ok)
            let app = try await api.admin(.get, "/admin/apps/checks").text
            #expect(app.contains(#""passcodeResetKeepsData":false"#), "\(app)")

            // After a wipe, the devices page says what was done.
            let devices = try await admin.get("/console/devices?app=checks&done=wipe&id=\(registration)")
            #expect(devices.text.contains("Registration \(registration). Wiped:"))
            // A result named in the query is said only in the server's words, of a listed one.
            let forged = try await admin.get("/console/devices?app=checks&done=wipe&id=not-a-registration")
            #expect(!forged.text.contains("not-a-registration") && forged.text.contains("Wiped:"))
        }
    }

    @Test(
        "a signed-in admin's form without its token, or with another browser's, is refused on every form, nothing done"
    )
    func formsNeedTheirBrowsersToken() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let registration = try await Self.registration(api)
            _ = try await OperatorsTests.consoleCookie(fixture, "ops.other", role: .viewer)
            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console")
            let own = ConsoleAppsTests.formToken(of: page.text)
            #expect(!own.isEmpty)
            // Another browser, and its token, which is no good with the admin's cookie.
            let other = PageBrowser(api.running)
            let othersToken = ConsoleAppsTests.formToken(of: try await other.get("/console/sign-in").text)
            #expect(!othersToken.isEmpty && othersToken != own)
            let before = try await Self.auditCount(api)
            let forms =
                Self.actions + [
                    ("/console/sign-out", []), ("/console/sign-in", [("name", "ops.ada"), ("password", "x")]),
                ]
            for (path, fields) in forms {
                let path = path.replacingOccurrences(of: "{registration}", with: registration)
                for (token, kind) in [(nil, "no token"), ("", "an empty token"), (othersToken, "another browser's")] {
                    let sent = fields + (token.map { [("form_token", $0)] } ?? [])
                    let refused = try await admin.post(
                        path,
                        sent,
                        headers: [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"]
                    )
                    #expect(refused.status == .forbidden, "\(path) with \(kind): \(refused.status)")
                }
            }
            #expect(try await Self.auditCount(api) == before, "a forged form was acted on")
            // The session was not ended by a forged sign-out.
            #expect(try await admin.get("/console").status == .ok)
            // The same form with its own token is taken: the refusals above were the token's.
            let blocked = try await admin.post(
                "/console/users/alice",
                [("form_token", own), ("action", "block"), ("confirmed", "yes")]
            )
            #expect(blocked.status == .seeOther, "\(blocked.status)")
            #expect(try await api.admin(.get, "/admin/users/alice").json["blocked"] as? Bool == true)
        }
    }
}

import Foundation
import GangwayProtocol
import GangwayQRCode
import GangwayServerStorage
import GangwayServerTesting
import GangwaySystem
import GangwayTesting
import HTTPTypes
import Testing

@testable import GangwayConsole
@testable import GangwayServer

@Suite(
    "The console's apps: each setting of the exchange in one form, changed by an admin, said what devices do",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ConsoleAppsTests {
    /// A browser without script signed in to the console as a new operator with `role`.
    static func browser(
        _ api: API,
        _ fixture: ServerFixture,
        _ name: String,
        role: OperatorRole
    ) async throws
        -> PageBrowser
    {
        let cookie = try await OperatorsTests.consoleCookie(fixture, name, role: role)
        let browser = PageBrowser(api.running)
        let token = try #require(cookie[.cookie]?.split(separator: "=", maxSplits: 1).last)
        browser.setCookie("gangway_console", String(token))
        return browser
    }

    /// The settings exchange a device of alice's reads.
    static func exchange(_ api: API) async throws -> [String: Any] {
        let token = try await api.signIn("alice")
        let reply = try await api.send(.get, "/apps/checks/settings", token: token)
        try api.expectStatus(reply, .ok)
        return try #require((try reply.json["mobileservices"] as? [String: Any])?["settingsExchange"] as? [String: Any])
    }

    @Test("the form sent back as it is shown changes nothing, on both stores", arguments: Backend.available)
    func roundTrip(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            // Settings away from the defaults, so a field the form dropped would show.
            let change = try await api.admin(
                .patch,
                "/admin/apps/checks",
                json: #"""
                    {"minimumVersion": "2.1", "settings": {
                      "passwordPolicy": {"passwordPolicyMinLength": 10, "passwordPolicyUpperRequired": true, "passwordPolicyLockTimeout": 60, "passwordPolicyHistorySize": 3},
                      "sharedDeviceSettings": {"allowUploadPendingChangesFromPreviousUser": false},
                      "blockWipingPolicy": {"blockWipeEnabled": true, "blockDisconnectedPeriod": 7, "wipeDisconnectedPeriod": 30},
                      "logSettings": {"logEnabled": true, "logLevel": "warning", "maxEntriesPerUpload": 50, "uploadIntervalSeconds": 600},
                      "consentSettings": {"eulaVersion": "3"},
                      "recoverySettings": {"passcodeResetKeepsData": false},
                      "dataSettings": {"removalsKeptDays": 45}}}
                    """#
            )
            try api.expectStatus(change, .ok)
            let before = try await Self.exchange(api)
            let browser = try await Self.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await browser.get("/console/apps/checks")
            try page.expect(.ok)
            #expect(page.text.contains("At least 10 characters"), "the checklist")
            #expect(page.text.contains("At least one uppercase letter"))
            let fields = Self.controls(of: page.text)
            #expect(fields["passwordPolicyMinLength"] == "10")
            #expect(fields["allowUploadPendingChangesFromPreviousUser"] == nil, "unchecked: not sent")
            #expect(fields["blockWipeEnabled"] == "on")
            #expect(fields["logLevel"] == "warning")
            #expect(fields["removalsKeptDays"] == "45")
            let saved = try await browser.submit(page, to: "/console/apps/checks", fields.map { ($0.key, $0.value) })
            try saved.expect(.ok)
            #expect(saved.text.contains("Nothing changed."))
            let after = try await Self.exchange(api)
            #expect(NSDictionary(dictionary: after) == NSDictionary(dictionary: before))
        }
    }

    @Test(
        "an admin turns off the previous user's upload: the page says what devices do; the exchange says it; the audit has it",
        arguments: Backend.available
    )
    func sharedDevices(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let browser = try await Self.browser(api, fixture, "ops.ada", role: .admin)
            let apps = try await browser.get("/console/apps")
            #expect(apps.text.contains(#"<a href="/console/apps/checks">checks</a>"#))
            let page = try await browser.get("/console/apps/checks")
            var fields = Self.controls(of: page.text)
            #expect(fields.removeValue(forKey: "allowUploadPendingChangesFromPreviousUser") == "on")
            fields["passwordPolicyMinLength"] = "12"
            #expect(fields["removalsKeptDays"] == "30", "the default, shown")
            fields["removalsKeptDays"] = "90"
            let saved = try await browser.submit(page, to: "/console/apps/checks", fields.map { ($0.key, $0.value) })
            try saved.expect(.ok)
            #expect(saved.text.contains("Removed entities are remembered 90 days"))
            #expect(saved.text.contains("wait on the device until their author signs in again"))
            #expect(saved.text.contains("Stricter passcode rules"))
            #expect(!saved.text.contains("Nothing changed."))
            let exchange = try await Self.exchange(api)
            let shared = try #require(exchange["sharedDeviceSettings"] as? [String: Any])
            #expect(shared["allowUploadPendingChangesFromPreviousUser"] as? Bool == false)
            #expect((exchange["passwordPolicy"] as? [String: Any])?["passwordPolicyMinLength"] as? Int == 12)
            #expect((exchange["dataSettings"] as? [String: Any])?["removalsKeptDays"] as? Int == 90)
            let events = try await OperatorsTests.audit(api)
            #expect(events.first?.action == "updateApp")
            #expect(events.first?.actor == "ops.ada" && events.first?.via == .console)
        }
    }

    @Test("a viewer and an operator read the settings and are refused a change; a wrong number keeps what was typed")
    func refusals() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            for role in [OperatorRole.viewer, .operator] {
                let browser = try await Self.browser(api, fixture, "ops.\(role)", role: role)
                let page = try await browser.get("/console/apps/checks")
                try page.expect(.ok)
                #expect(page.text.contains(" disabled"), "\(role): the controls are disabled")
                #expect(!page.text.contains(">Save</button>"))
                let fields = Self.controls(of: page.text).merging(["passwordPolicyMinLength": "4"]) { $1 }
                let refused = try await browser.submit(
                    page,
                    to: "/console/apps/checks",
                    fields.map { ($0.key, $0.value) }
                )
                #expect(refused.status == .forbidden, "\(role)")
            }
            let admin = try await Self.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console/apps/checks")
            var fields = Self.controls(of: page.text)
            fields["wipeDisconnectedPeriod"] = "a week"
            fields["eulaVersion"] = "4-draft"
            let wrong = try await admin.submit(page, to: "/console/apps/checks", fields.map { ($0.key, $0.value) })
            #expect(wrong.status == .badRequest)
            // Said beside the setting, which is marked invalid, and named at the top.
            #expect(
                wrong.text.contains(
                    #"<p class="error field-error" id="wipeDisconnectedPeriod-error">Days without contact before the app "#
                        + "erases the person&#39;s data: give a whole number.</p>"
                ),
                "\(wrong.text)"
            )
            #expect(
                wrong.text.contains(
                    #"aria-describedby="wipeDisconnectedPeriod-hint wipeDisconnectedPeriod-error" aria-invalid="true""#
                )
            )
            #expect(wrong.text.contains("Not saved: one setting needs another value (marked below)."))
            #expect(wrong.text.contains(#"value="a week""#) && wrong.text.contains(#"value="4-draft""#), "kept")
            fields["wipeDisconnectedPeriod"] = "4000"
            let outOfRange = try await admin.submit(page, to: "/console/apps/checks", fields.map { ($0.key, $0.value) })
            #expect(outOfRange.status == .badRequest, "the API's own range")
            // The API's refusal in the page's words: the label, never the API's key.
            #expect(
                outOfRange.text.contains(
                    #"id="wipeDisconnectedPeriod-error">“Days without contact before the app erases the person&#39;s "#
                ),
                "\(outOfRange.text)"
            )
            #expect(!outOfRange.text.contains(">wipeDisconnectedPeriod "), "no API key shown as words")
            // Erasing before locking is refused, in the page's words too.
            fields["blockWipeEnabled"] = "on"
            fields["blockDisconnectedPeriod"] = "14"
            fields["wipeDisconnectedPeriod"] = "3"
            let backwards = try await admin.submit(page, to: "/console/apps/checks", fields.map { ($0.key, $0.value) })
            #expect(backwards.status == .conflict, "\(backwards.status)")
            #expect(backwards.text.contains("(3 days) is shorter than “Days without contact before the app locks"))
            #expect(
                backwards.text.contains(
                    #"aria-describedby="wipeDisconnectedPeriod-hint wipeDisconnectedPeriod-error" aria-invalid="true""#
                )
            )
            let unchanged = try await Self.exchange(api)
            #expect((unchanged["passwordPolicy"] as? [String: Any])?["passwordPolicyMinLength"] as? Int == 8)
            #expect((unchanged["consentSettings"] as? [String: Any])?["eulaVersion"] == nil)
            #expect(try await admin.get("/console/apps/nothing").status == .notFound)
        }
    }

    @Test("an operator makes an activation link with its QR code; a viewer is refused; bad days are said")
    func activation() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let viewer = try await Self.browser(api, fixture, "ops.vic", role: .viewer)
            let read = try await viewer.get("/console/apps/checks/activation")
            try read.expect(.ok)
            #expect(!read.text.contains("Make a link"))
            let refused = try await viewer.submit(read, to: "/console/apps/checks/activation", [("days", "7")])
            #expect(refused.status == .forbidden)
            #expect(!refused.text.contains("gangway://activate"))

            let browser = try await Self.browser(api, fixture, "ops.ola", role: .operator)
            let page = try await browser.get("/console/apps/checks/activation")
            for (days, message) in [
                ("x", "whole number from 1 to 365"), ("366", "validDays must be between 1 and 365"),
            ] {
                let wrong = try await browser.submit(page, to: "/console/apps/checks/activation", [("days", days)])
                #expect(wrong.status == .badRequest, "\(days)")
                #expect(wrong.text.contains(message) && wrong.text.contains(#"value="\#(days)""#))
            }
            let made = try await browser.submit(page, to: "/console/apps/checks/activation", [("days", "30")])
            try made.expect(.ok)
            let link = try #require(made.text.firstMatch(of: /<code id="link">([^<]*)<\/code>/)?.output.1)
                .replacingOccurrences(of: "&amp;", with: "&")
            #expect(link.hasPrefix("gangway://activate?payload="))
            let payload = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "payload" }?.value)
            let json = try #require(Data(base64URLEncoded: payload))
            let configuration = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            #expect(configuration["appID"] as? String == "checks")
            let expiry = (fixture.clock.now().timeIntervalSince1970 + 30 * 24 * 3600).rounded(.down)
            #expect(
                made.text.contains("Activates until \(OperatorConsole.minute(Date(timeIntervalSince1970: expiry)))")
            )
            // The QR code is drawn by the server, as an SVG image of the link itself (that the
            // drawing reads back is GangwayQRCodeTests' and the browser tests' to show).
            let image = try #require(made.text.firstMatch(of: /src="data:image\/svg\+xml;base64,([^"]*)"/)?.output.1)
            let svg = String(decoding: try #require(Data(base64Encoded: String(image))), as: UTF8.self)
            let drawn = try QRCode(encoding: link, correction: .medium)
            #expect(svg == drawn.svg(moduleSize: 6, quietZone: 4, title: "QR code of the activation link"))
            let events = try await OperatorsTests.audit(api)
            #expect(events.first?.action == "createActivation" && events.first?.actor == "ops.ola")
        }
    }

    @Test(
        "an admin adds an operator and gets their one-use link, changes a role, gives a new link, removes them; not themselves; a viewer reads"
    )
    func operators() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let admin = try await Self.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console/operators")
            try page.expect(.ok)
            let added = try await admin.submit(
                page,
                to: "/console/operators",
                [("name", "ops.ben"), ("role", "operator")]
            )
            try added.expect(.ok)
            let link = try #require(added.text.firstMatch(of: /<code id="enrolment-link">([^<]*)<\/code>/)?.output.1)
            #expect(link.contains("/console/enrol?token="))
            #expect(added.text.contains("Give this link to ops.ben alone"))
            let again = try await admin.submit(
                page,
                to: "/console/operators",
                [("name", "ops.ben"), ("role", "viewer")]
            )
            #expect(again.status == .conflict)
            #expect(again.text.contains("exists") && again.text.contains(#"value="ops.ben""#))
            let bad = try await admin.submit(page, to: "/console/operators", [("name", "ops ben"), ("role", "viewer")])
            #expect(bad.status == .badRequest)

            let list = try await admin.get("/console/operators")
            let changed = try await admin.submit(
                list,
                to: "/console/operators/ops.ben",
                [("action", "role"), ("role", "admin")]
            )
            #expect(changed.status == .seeOther)
            #expect(try await fixture.server.storage.operatorRecord(named: "ops.ben")?.role == .admin)
            let relinked = try await admin.submit(list, to: "/console/operators/ops.ben", [("action", "enrol")])
            let second = try #require(
                relinked.text.firstMatch(of: /<code id="enrolment-link">([^<]*)<\/code>/)?.output.1
            )
            #expect(second != link)
            let mine = try await admin.submit(list, to: "/console/operators/ops.ada", [("action", "remove")])
            #expect(mine.status == .forbidden)
            #expect(try await fixture.server.storage.operatorRecord(named: "ops.ada") != nil)
            // Asked first: the page says what removing does, and nothing is done yet.
            let asked = try await admin.submit(list, to: "/console/operators/ops.ben", [("action", "remove")])
            #expect(asked.status == .ok && asked.text.contains("Remove the operator ops.ben?"))
            #expect(try await fixture.server.storage.operatorRecord(named: "ops.ben") != nil)
            let removed = try await admin.submit(asked, to: "/console/operators/ops.ben", [])
            #expect(removed.status == .seeOther)
            #expect(try await fixture.server.storage.operatorRecord(named: "ops.ben") == nil)
            let gone = try await admin.submit(
                list,
                to: "/console/operators/ops.ben",
                [("action", "remove"), ("confirmed", "yes")]
            )
            #expect(gone.status == .notFound)

            let viewer = try await Self.browser(api, fixture, "ops.vic", role: .viewer)
            let read = try await viewer.get("/console/operators")
            #expect(
                read.text.contains(#"<td data-label="Name">ops.ada</td>"#) && !read.text.contains("Add an operator")
            )
            let refused = try await viewer.submit(
                page,
                to: "/console/operators",
                [("name", "ops.eve"), ("role", "admin")]
            )
            #expect(refused.status == .forbidden)
            #expect(try await fixture.server.storage.operatorRecord(named: "ops.eve") == nil)
            let events = try await OperatorsTests.audit(api)
            #expect(
                events.prefix(4).map(\.action) == ["removeOperator", "enrolOperator", "updateOperator", "addOperator"]
            )
            #expect(events.prefix(4).allSatisfy { $0.actor == "ops.ada" && $0.via == .console })
        }
    }

    /// The controls of the first post form that a browser sends: inputs with their value
    /// (checkboxes only when checked, as `on`) and each select's chosen option; hidden
    /// fields are the browser's to add.
    @Test(
        "an admin adds an app and changes its email domains; a viewer may not; each refusal explained, what was typed kept"
    )
    func addApp() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let viewer = try await Self.browser(api, fixture, "ops.vic", role: .viewer)
            let read = try await viewer.get("/console/apps")
            #expect(read.text.contains("An admin adds apps") && !read.text.contains("Add the app"))
            let refused = try await viewer.post(
                "/console/apps",
                [("form_token", Self.formToken(of: read.text)), ("appID", "fuel"), ("name", "Fuel")]
            )
            #expect(refused.status == .forbidden)

            let admin = try await Self.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console/apps")
            #expect(page.text.contains("Add the app"))
            for (fields, status, message) in [
                ([("appID", "-fuel"), ("name", "Fuel records")], HTTPResponse.Status.badRequest, "appID"),
                ([("appID", "checks"), ("name", "Again")], .conflict, "exists already"),
                (
                    [("appID", "fuel"), ("name", "Fuel records"), ("emailDomains", "airline.example")], .conflict,
                    "airline.example"
                ),
            ] {
                let wrong = try await admin.submit(page, to: "/console/apps", fields)
                #expect(wrong.status == status, "\(fields)")
                #expect(wrong.text.contains(message), "\(fields)")
                #expect(wrong.text.contains(#"value="\#(fields[0].1)""#), "kept")
            }
            let added = try await admin.submit(
                page,
                to: "/console/apps",
                [("appID", "fuel"), ("name", "Fuel records"), ("emailDomains", "fuel.example, ops.fuel.example")]
            )
            #expect(added.status == .seeOther)
            #expect(added.headers[.location] == "/console/apps/fuel")
            #expect(try await api.send(.get, "/discovery?email=a@ops.fuel.example").status == .ok)

            let settings = try await admin.get("/console/apps/fuel")
            var fields = Self.controls(of: settings.text)
            #expect(fields["emailDomains"] == "fuel.example, ops.fuel.example")
            fields["emailDomains"] = "fuel.example"
            let saved = try await admin.submit(settings, to: "/console/apps/fuel", fields.map { ($0.key, $0.value) })
            try saved.expect(.ok)
            #expect(try await api.send(.get, "/discovery?email=a@ops.fuel.example").status == .notFound)
            #expect(try await api.send(.get, "/discovery?email=a@fuel.example").status == .ok)

            let events = try await OperatorsTests.audit(api)
            #expect(events.prefix(2).map(\.action) == ["updateApp", "createApp"])
            // The app made is the target, and of the settings form only what changed is said.
            #expect(events[1].target == "/admin/apps/fuel")
            #expect(events[0].detail == "emailDomains: [fuel.example, ops.fuel.example] → [fuel.example]")
            #expect(events.prefix(2).allSatisfy { $0.actor == "ops.ada" && $0.via == .console })
        }
    }

    /// The anti-forgery token of the first form of `html`.
    static func formToken(of html: String) -> String {
        String(html.firstMatch(of: /name="form_token" value="([^"]*)"/)?.output.1 ?? "")
    }

    static func controls(of html: String) -> [String: String] {
        var fields: [String: String] = [:]
        for input in html.matches(of: /<input ([^>]*)>/) {
            let attributes = String(input.output.1)
            guard let name = attributes.firstMatch(of: /name="([^"]*)"/)?.output.1,
                !attributes.contains("type=\"hidden\"")
            else { continue }
            if attributes.contains("type=\"checkbox\"") {
                if attributes.contains(" checked") { fields[String(name)] = "on" }
            } else {
                fields[String(name)] = String(attributes.firstMatch(of: /value="([^"]*)"/)?.output.1 ?? "")
                    .replacingOccurrences(of: "&#39;", with: "'")
            }
        }
        for select in html.matches(of: /<select id="[^"]*" name="([^"]*)"[^>]*>(.*?)<\/select>/) {
            fields[String(select.output.1)] = String(
                select.output.2.firstMatch(of: /<option selected>([^<]*)<\/option>/)?.output.1 ?? ""
            )
        }
        return fields
    }
}

import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "An app's registrations paged by the database: by user, by status, after the last one shown",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct DeviceListTests {
    /// `count` registrations of the users crew000… (one each), straight to the storage,
    /// and the names of their users.
    static func addDevices(_ count: Int, _ fixture: ServerFixture) async throws {
        try await OperatorsTests.addCrew(count, digits: 3, fixture)
        let now = fixture.clock.now()
        for index in 0..<count {
            try await fixture.server.storage.saveDevice(
                DeviceRecord(
                    registrationID: String(format: "reg-%03d", (index * 7) % count),
                    appID: "checks",
                    username: String(format: "crew%03d", index),
                    deviceID: "tablet",
                    deviceName: "Tablet \(index)",
                    platform: "linux",
                    appVersion: "1.0.0",
                    status: index % 5 == 0 ? .locked : .active,
                    statusChangedAt: now,
                    recoverySecret: Data(repeating: 0, count: 32),
                    registeredAt: now.addingTimeInterval(-Double(index)),
                    lastContactAt: now
                )
            )
        }
    }

    static func list(_ api: API, _ query: String) async throws -> [Components.Schemas.Device] {
        try await api.admin(.get, "/admin/apps/checks/devices\(query)").decode([Components.Schemas.Device].self)
    }

    @Test(
        "pages by user and registration, a prefix of any case, a status; every registration without a parameter",
        arguments: Backend.available
    )
    func paged(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            try await Self.addDevices(12, fixture)
            let all = try await Self.list(api, "")
            #expect(all.count == 12)
            #expect(all.first?.userID == "crew011", "oldest first, as before")

            var walked: [String] = []
            var after = ""
            while true {
                let page = try await Self.list(api, "?limit=5\(after)")
                walked += page.map(\.userID)
                guard page.count == 5, let last = page.last else { break }
                after = "&after=\(last.registrationID)"
            }
            #expect(walked == (0..<12).map { String(format: "crew%03d", $0) })

            #expect(
                try await Self.list(api, "?user=CREW00").map(\.userID)
                    == (0..<10).map { String(format: "crew%03d", $0) }
            )
            #expect(try await Self.list(api, "?status=locked").map(\.userID) == ["crew000", "crew005", "crew010"])
            #expect(try await Self.list(api, "?user=crew01&status=active").map(\.userID) == ["crew011"])
            #expect(try await Self.list(api, "?user=c_ew").isEmpty, "a wildcard matches itself")
            #expect(try await Self.list(api, "?after=no-such-registration").isEmpty)
            #expect(try await Self.list(api, "?user=crew%01").isEmpty, "no name holds a control character")
            for bad in ["?limit=0", "?limit=1001", "?after=" + String(repeating: "r", count: 65), "?status=gone"] {
                #expect(try await api.admin(.get, "/admin/apps/checks/devices\(bad)").status == .badRequest, "\(bad)")
            }
        }
    }

    @Test("a wiped registration says whether its device heard of the wipe", arguments: Backend.available)
    func wipeCarriedOut(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let token = try await api.signIn("alice")
            let registration = try await api.register(token: token)
            #expect(try await Self.list(api, "").first?.wipeCarriedOut == nil, "not wiped")
            fixture.clock.advance(by: .seconds(1))
            try await api.admin(
                .patch,
                "/admin/apps/checks/devices/\(registration.registrationID)",
                json: #"{"status": "wiped"}"#
            ).expect(.ok)
            let waiting = try #require(try await Self.list(api, "").first)
            #expect(waiting.wipeCarriedOut == false)
            let changed = try #require(waiting.statusChangedAt)
            #expect(abs(changed.timeIntervalSince(fixture.clock.now())) < 1, "sent to the second")
            fixture.clock.advance(by: .seconds(1))
            #expect(try await api.send(.get, "/apps/checks/data/checks", token: token).status == .forbidden)
            #expect(try await Self.list(api, "").first?.wipeCarriedOut == true)
        }
    }

    @Test("the console's devices page: fifty a page with a link to the next, found by user and status")
    func consolePages() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            try await Self.addDevices(55, fixture)
            let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.vi", role: .viewer)
            let first = try await browser.get("/console/devices?app=checks")
            try first.expect(.ok)
            #expect(first.text.components(separatedBy: #"<tr><td data-label="User">crew"#).count == 51)
            #expect(
                first.text.contains(#"<tr><td data-label="User">crew049</td>"#)
                    && !first.text.contains(#"<tr><td data-label="User">crew050</td>"#)
            )
            let next = try #require(first.text.firstMatch(of: /<a href="([^"]+)" rel="next">/)?.1)
            let second = try await browser.get(String(next).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(second.text.components(separatedBy: #"<tr><td data-label="User">crew"#).count == 6)
            #expect(
                second.text.contains(#"<tr><td data-label="User">crew054</td>"#)
                    && !second.text.contains(#"rel="next""#)
            )
            // How many in all, on every page, and a way back to the first.
            #expect(first.text.contains("(55 in all)") && second.text.contains("(55 in all)"))
            #expect(!first.text.contains(">First page<"))
            #expect(second.text.contains(#"<a href="/console/devices?app=checks">First page</a>"#))

            let found = try await browser.get("/console/devices?app=checks&user=Crew05&status=locked")
            #expect(found.text.contains("users starting with “Crew05”, locked, by user"))
            #expect(found.text.contains("(1 in all)"))
            #expect(found.text.components(separatedBy: #"<tr><td data-label="User">crew"#).count == 2, "crew050 alone")
            #expect(found.text.contains(#"<option value="locked" selected>locked</option>"#))
            let none = try await browser.get("/console/devices?app=checks&user=nobody")
            #expect(none.text.contains("No registration of this app matches."))
        }
    }
}

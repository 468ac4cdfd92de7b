import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "The console's forms: a signed-in operator's take what the API takes; a refusal is a page, not the API's document",
    .servingTurn
)
struct ConsoleFormLimitTests {
    /// Twenty fields of 1,000 characters: past the 16 KiB a request from no known caller
    /// may send, well within what the API takes for an entity.
    static let largeFields = (0..<20).map { "f\($0) = " + String(repeating: "v", count: 1_000) }
        .joined(separator: "\n")

    @Test("an admin saves an entity of 20 KB from the data page, as the admin API takes it")
    func largeEntity() async throws {
        let fixture = try await ServerFixture(over: .loopback)
        try await fixture.runSeeded { api in
            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console/data?app=checks&set=checks")
            try page.expect(.ok)
            let saved = try await admin.submit(
                page,
                to: "/console/data",
                [("app", "checks"), ("set", "checks"), ("id", "big1"), ("action", "put"), ("fields", Self.largeFields)]
            )
            #expect(saved.status == .seeOther, "\(saved.status) \(saved.text.prefix(300))")
            let stored = try await fixture.server.storage.entities(appID: "checks", entitySet: "checks")
            let entity = try #require(stored.first { $0.id == "big1" })
            #expect(entity.fields.count == 20 && entity.fields["f19"]?.count == 1_000)
        }
    }

    @Test("a form too large from no signed-in operator, and a page that is not there, are pages that say so")
    func refusalsArePages() async throws {
        try await ServerFixture(over: .loopback).runSeeded { api in
            let browser = PageBrowser(api.running)
            // Sent whole before the answer is read, as a browser's small form is: the server
            // answers at the limit and closes the connection.
            let refused = try await api.sendAlone(
                .post,
                "/console/sign-in",
                json: "name=ops.ada&password=" + String(repeating: "p", count: 20_000)
            )
            #expect(refused.status == .contentTooLarge)
            #expect(refused.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(refused.text.contains("The form is larger than the console takes"), "\(refused.text.prefix(400))")
            #expect(refused.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(!refused.text.contains(String(repeating: "p", count: 100)), "what was sent is not shown")
            // A cookie of the right length that opens no session counts as none.
            let forged = try await api.sendAlone(
                .post,
                "/console/data",
                json: "app=checks&fields=" + String(repeating: "v", count: 20_000),
                headers: [.cookie: "gangway_console=" + String(repeating: "A", count: 43)]
            )
            #expect(forged.status == .contentTooLarge)

            let missing = try await browser.get("/console/nonexistent")
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(missing.text.contains("Back to the console"))
            let wrongMethod = try await browser.post("/console/devices", [])
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.headers[.allow]?.uppercased().contains("GET") == true, "\(wrongMethod.headers)")
            #expect(wrongMethod.headers[.contentType]?.hasPrefix("text/html") == true)
        }
    }
}

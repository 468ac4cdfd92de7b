import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "The console's page of an app's destinations: listed for every operator, changed by an admin",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ConsoleDestinationsTests {
    static func destinations(_ api: API) async throws -> [Components.Schemas.Destination] {
        try await api.admin(.get, "/admin/apps/checks/destinations").decode([Components.Schemas.Destination].self)
    }

    static let path = "/console/apps/checks/destinations"

    @Test(
        "an admin adds the person's and a credential's destinations, changes and removes one; the credential never shows; each in the audit",
        arguments: Backend.available
    )
    func added(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let app = try await admin.get("/console/apps/checks")
            #expect(app.text.contains(#"<a href="/console/apps/checks/destinations">Its destinations</a>"#))
            let empty = try await admin.get(Self.path)
            try empty.expect(.ok)
            #expect(empty.text.contains("No destination yet."))

            let orders = try await admin.submit(
                empty,
                to: Self.path,
                [("name", "orders"), ("url", "https://orders.example.com/api"), ("authentication", "identity")]
            )
            #expect(orders.status == .seeOther)
            let secret = "stock-key-93817"
            let stock = try await admin.submit(
                empty,
                to: Self.path,
                [
                    ("name", "stock"), ("url", "https://stock.example.com"), ("authentication", "credential"),
                    ("credentialHeader", "X-API-Key"), ("credential", secret),
                ]
            )
            #expect(stock.status == .seeOther)
            var stored = try await Self.destinations(api)
            #expect(stored.map(\.name) == ["orders", "stock"])
            #expect(stored.last?.authentication == .credential && stored.last?.credentialHeader == "X-API-Key")

            let listed = try await admin.get(Self.path)
            #expect(
                listed.text.contains(
                    #"<td data-label="Name">orders</td><td data-label="URL"><code>https://orders.example.com/api</code></td>"#
                )
            )
            #expect(
                listed.text.contains(
                    #"<td data-label="Carries">the signed-in person</td><td data-label="Requests">none</td>"#
                )
            )
            #expect(listed.text.contains(#"<td data-label="Carries">a fixed credential in X-API-Key</td>"#))
            #expect(listed.text.contains(#"aria-label="Remove stock""#))
            #expect(!listed.text.contains(secret))

            // Changed by its name, the credential left empty: the stored one is kept.
            let changed = try await admin.submit(
                listed,
                to: Self.path,
                [
                    ("action", "put"), ("name", "stock"), ("url", "https://stock.example.com/v2"),
                    ("authentication", "credential"),
                ]
            )
            #expect(changed.status == .seeOther, "\(changed.text)")
            stored = try await Self.destinations(api)
            #expect(stored.last?.url == "https://stock.example.com/v2")
            #expect(stored.last?.authentication == .credential)

            let asked = try await admin.submit(listed, to: Self.path, [("action", "remove"), ("name", "orders")])
            #expect(asked.status == .ok && asked.text.contains("Remove the destination orders?"))
            let removed = try await admin.submit(asked, to: Self.path, [])
            #expect(removed.status == .seeOther)
            #expect(try await Self.destinations(api).map(\.name) == ["stock"])

            let events = try await OperatorsTests.audit(api)
            #expect(
                events.prefix(4).map(\.action) == [
                    "removeDestination", "putDestination", "putDestination", "putDestination",
                ]
            )
            #expect(events.first?.target == "/admin/apps/checks/destinations/orders")
            #expect(events.prefix(4).allSatisfy { $0.actor == "ops.ada" && $0.via == .console })
        }
    }

    @Test(
        "a viewer and an operator read the list and change nothing; an admin's mistakes are said, what was typed kept"
    )
    func refusals() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            _ = try await api.admin(
                .put,
                "/admin/apps/checks/destinations/orders",
                json: #"{"url": "https://o.example"}"#
            )
            for role in [OperatorRole.viewer, .operator] {
                let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.\(role)", role: role)
                let page = try await browser.get(Self.path)
                try page.expect(.ok)
                #expect(page.text.contains(#"<td data-label="Name">orders</td>"#))
                #expect(page.text.contains("Only an admin adds or removes destinations"))
                #expect(!page.text.contains(">Save</button>") && !page.text.contains(">Remove</button>"))
                let refused = try await browser.submit(page, to: Self.path, [("action", "remove"), ("name", "orders")])
                #expect(refused.status == .forbidden, "\(role)")
            }
            #expect(try await Self.destinations(api).count == 1, "nothing changed")

            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get(Self.path)
            for (fields, message, status) in [
                ([("name", "x"), ("url", "http://x.example.com")], "https URL", HTTPResponse.Status.badRequest),
                (
                    [("name", "bad name"), ("url", "https://x.example.com")],
                    "name must start with an ASCII letter or digit", .badRequest
                ),
                (
                    [("name", "x"), ("url", "https://x.example.com"), ("authentication", "credential")],
                    "credentialHeader", .badRequest
                ),
                (
                    [
                        ("name", "x"), ("url", "https://x.example.com"), ("authentication", "credential"),
                        ("credentialHeader", "Host"), ("credential", "c-91"),
                    ], "cannot carry a credential", .badRequest
                ),
                (
                    [
                        ("name", "x"), ("url", "https://x.example.com"), ("authentication", "credential"),
                        ("credentialHeader", "Bad Header"), ("credential", "c-91"),
                    ], "is not a header name", .badRequest
                ),
            ] {
                let wrong = try await admin.submit(page, to: Self.path, [("action", "put")] + fields)
                #expect(wrong.status == status, "\(fields)")
                #expect(wrong.text.contains(message), "\(fields): \(wrong.text)")
                #expect(!wrong.text.contains("c-91"), "never the credential")
                let url = try #require(fields.first { $0.0 == "url" }?.1)
                #expect(wrong.text.contains(#"value="\#(url)""#), "kept")
            }
            let missing = try await admin.submit(
                page,
                to: Self.path,
                [("action", "remove"), ("name", "payroll"), ("confirmed", "yes")]
            )
            #expect(missing.status == .notFound)
            #expect(missing.text.contains("no destination of this name"))
            #expect(try await admin.get("/console/apps/nope/destinations").status == .notFound)
            #expect(try await Self.destinations(api).count == 1, "nothing changed")
        }
    }
}

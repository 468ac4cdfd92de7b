import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "The console's page of how an app's people sign in: basic or OAuth 2.0, the company's provider, redirect URIs",
    .servingTurn
)
struct ConsoleSignInSettingsTests {
    static func authentication(_ api: API) async throws -> Components.Schemas.AppAuthentication {
        try await api.admin(.get, "/admin/apps/checks/authentication").decode(Components.Schemas.AppAuthentication.self)
    }

    @Test(
        "a viewer and an operator read it and change nothing; an admin's mistakes are explained, what was typed kept, never the secret"
    )
    func refusals() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            for role in [OperatorRole.viewer, .operator] {
                let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.\(role)", role: role)
                let page = try await browser.get("/console/apps/checks/sign-in")
                try page.expect(.ok)
                #expect(page.text.contains(#"id="type-basic" name="type" value="basic" checked disabled"#))
                #expect(!page.text.contains(">Save</button>"))
                let refused = try await browser.submit(page, to: "/console/apps/checks/sign-in", [("type", "oauth2")])
                #expect(refused.status == .forbidden, "\(role)")
            }
            #expect(try await Self.authentication(api)._type == .basic, "nothing changed")

            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console/apps/checks/sign-in")
            let secret = "s3cret-of-the-provider"
            for (fields, message) in [
                (
                    [("type", "oauth2"), ("issuer", "https://login.example.com"), ("clientSecret", secret)],
                    "needs both"
                ),
                ([("type", "basic"), ("issuer", "https://login.example.com"), ("clientID", "gw")], "choose OAuth 2.0"),
                ([("type", "oauth2"), ("redirectURIs", "ftp://example.com/back")], "redirect"),
                ([("type", "oauth2"), ("issuer", "http://login.example.com"), ("clientID", "gw")], "https"),
                ([("type", "both")], "Choose basic or OAuth 2.0."),
            ] {
                let wrong = try await admin.submit(page, to: "/console/apps/checks/sign-in", fields)
                #expect(wrong.status == .badRequest, "\(fields)")
                #expect(wrong.text.contains(message), "\(fields): \(wrong.text)")
                #expect(!wrong.text.contains(secret), "never the secret")
                if let issuer = fields.first(where: { $0.0 == "issuer" })?.1 {
                    #expect(wrong.text.contains(#"value="\#(issuer)""#), "kept")
                }
            }
            #expect(try await Self.authentication(api)._type == .basic, "nothing changed")
        }
    }

    @Test(
        "an admin turns on OAuth 2.0 with the company's provider; the secret is kept when left empty; each save in the audit"
    )
    func saved() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            let page = try await admin.get("/console/apps/checks/sign-in")
            let oauth = try await admin.submit(
                page,
                to: "/console/apps/checks/sign-in",
                [("type", "oauth2"), ("redirectURIs", "com.airline.checks:/oauth\n\n  http://127.0.0.1/done  ")]
            )
            try oauth.expect(.ok)
            #expect(oauth.text.contains("From their next sign-in, people sign in through OAuth 2.0"))
            #expect(oauth.text.contains("com.airline.checks:/oauth, http://127.0.0.1/done"))
            var stored = try await Self.authentication(api)
            #expect(stored._type == .oauth2)
            #expect(stored.redirectURIs == ["com.airline.checks:/oauth", "http://127.0.0.1/done"])
            #expect(stored.provider == nil)
            #expect(try await api.signInReply("alice").status == .forbidden, "no password sign-in any more")

            let secret = "s3cret-of-the-provider"
            let federated = try await admin.submit(
                oauth,
                to: "/console/apps/checks/sign-in",
                [
                    ("type", "oauth2"), ("issuer", "https://login.example.com"), ("clientID", "gangway"),
                    ("clientSecret", secret), ("createsUsers", "on"), ("redirectURIs", "com.airline.checks:/oauth"),
                ]
            )
            try federated.expect(.ok)
            #expect(federated.text.contains("People sign in at https://login.example.com"))
            #expect(federated.text.contains("A secret is stored"))
            #expect(!federated.text.contains(secret))
            stored = try await Self.authentication(api)
            #expect(stored.provider?.clientID == "gangway")
            #expect(stored.provider?.hasClientSecret == true)
            #expect(stored.provider?.createsUsers == true)
            let redirect = try #require(stored.provider?.redirectURI)
            #expect(federated.text.contains("<code>\(redirect)</code>"))

            // Saved again without a secret: the stored one stays; nothing else changed.
            let again = try await admin.submit(
                federated,
                to: "/console/apps/checks/sign-in",
                [
                    ("type", "oauth2"), ("issuer", "https://login.example.com"), ("clientID", "gangway"),
                    ("createsUsers", "on"), ("redirectURIs", "com.airline.checks:/oauth"),
                ]
            )
            #expect(again.text.contains("Nothing changed."))
            #expect(try await Self.authentication(api).provider?.hasClientSecret == true)

            // Back to passwords as the command line does it, keeping the provider: the page
            // then saves as it shows, unchanged.
            let keeping = try await admin.submit(
                again,
                to: "/console/apps/checks/sign-in",
                [
                    ("type", "basic"), ("issuer", "https://login.example.com"), ("clientID", "gangway"),
                    ("createsUsers", "on"), ("redirectURIs", "com.airline.checks:/oauth"),
                ]
            )
            #expect(keeping.status == .ok, "\(keeping.text)")
            #expect(try await Self.authentication(api).provider?.hasClientSecret == true, "the provider is kept")
            let unchanged = try await admin.submit(
                keeping,
                to: "/console/apps/checks/sign-in",
                [
                    ("type", "basic"), ("issuer", "https://login.example.com"), ("clientID", "gangway"),
                    ("createsUsers", "on"), ("redirectURIs", "com.airline.checks:/oauth"),
                ]
            )
            #expect(unchanged.text.contains("Nothing changed."), "\(unchanged.text)")
            let oauthAgain = try await admin.submit(
                unchanged,
                to: "/console/apps/checks/sign-in",
                [
                    ("type", "oauth2"), ("issuer", "https://login.example.com"), ("clientID", "gangway"),
                    ("createsUsers", "on"), ("redirectURIs", "com.airline.checks:/oauth"),
                ]
            )
            #expect(try await Self.authentication(api)._type == .oauth2, "\(oauthAgain.text)")
            let back = try await admin.submit(oauthAgain, to: "/console/apps/checks/sign-in", [("type", "basic")])
            #expect(back.text.contains("people sign in with their user name and password"))
            #expect(try await api.signInReply("alice").status == .created)

            let events = try await OperatorsTests.audit(api)
            #expect(events.prefix(6).allSatisfy { $0.action == "setAppAuthentication" && $0.actor == "ops.ada" })
            #expect(events.first?.target == "/admin/apps/checks/authentication")
            #expect(try await admin.get("/console/apps/nowhere/sign-in").status == .notFound)

            // Attributes from the provider's claims, set through the API: the page does not
            // show them, and saving it keeps them for the same provider.
            let claims = """
                {"type": "oauth2", "redirectURIs": ["com.airline.checks:/oauth"],
                 "provider": {"issuer": "https://login.example.com", "clientID": "gangway", "createsUsers": true,
                              "attributeClaims": {"stations": "station_codes"}}}
                """
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/authentication", json: claims), .ok)
            let withClaims = try await admin.submit(
                back,
                to: "/console/apps/checks/sign-in",
                [
                    ("type", "oauth2"), ("issuer", "https://login.example.com"), ("clientID", "gangway"),
                    ("createsUsers", "on"), ("redirectURIs", "com.airline.checks:/oauth"),
                ]
            )
            try withClaims.expect(.ok)
            #expect(
                try await Self.authentication(api).provider?.attributeClaims?.additionalProperties
                    == ["stations": "station_codes"]
            )
        }
    }
}

import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

@Suite(
    "An app's authentication: basic or OAuth 2.0, its provider's secret sealed and never shown",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct AppAuthenticationTests {
    static let secret = "provider-secret-Xq7"
    static let provider = #"{"issuer": "https://login.airline.example", "clientID": "gangway-checks""#

    @Test(
        "basic at first; oauth2 with a provider shows everywhere, and the password route refuses",
        arguments: Backend.available
    )
    func setAndShown(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let initial = try await api.admin(.get, "/admin/apps/checks/authentication")
            try api.expectStatus(initial, .ok)
            #expect(
                try initial.decode(Components.Schemas.AppAuthentication.self) == .init(_type: .basic, redirectURIs: [])
            )

            let set = try await api.admin(
                .put,
                "/admin/apps/checks/authentication",
                json:
                    #"{"type": "oauth2", "provider": \#(Self.provider), "clientSecret": "\#(Self.secret)", "createsUsers": true}}"#
            )
            try api.expectStatus(set, .ok)
            let expected = Components.Schemas.AppAuthentication(
                _type: .oauth2,
                provider: .init(
                    issuer: "https://login.airline.example",
                    clientID: "gangway-checks",
                    createsUsers: true,
                    hasClientSecret: true,
                    redirectURI: "\(api.running.url.absoluteString)/apps/checks/oauth/callback"
                ),
                redirectURIs: []
            )
            #expect(try set.decode(Components.Schemas.AppAuthentication.self) == expected)
            let shown = try await api.admin(.get, "/admin/apps/checks/authentication")
            #expect(try shown.decode(Components.Schemas.AppAuthentication.self) == expected)
            #expect(!set.text.contains(Self.secret) && !shown.text.contains(Self.secret))
            // The audit says what changed; of the secret, only that it was set.
            let audited = try #require(try await OperatorsTests.audit(api, "?limit=1").first)
            #expect(audited.action == "setAppAuthentication")
            #expect(
                audited.detail
                    == "type: basic → oauth2; issuer: none → https://login.airline.example; "
                    + "clientID: none → gangway-checks; createsUsers: false → true; client secret set"
            )
            #expect(!(try await api.admin(.get, "/admin/audit").text.contains(Self.secret)))

            // What devices and the admin read of the app says oauth2.
            let app = try await api.admin(.get, "/admin/apps/checks").decode(Components.Schemas.App.self)
            #expect(app.authType == .oauth2)
            let discovered = try await api.send(.get, "/discovery?email=alice@airline.example")
            #expect(try discovered.decode(Components.Schemas.AppConfiguration.self).authType == .oauth2)
            // So does the version check at every launch, for a device that kept "basic".
            let version = try await api.send(.get, "/apps/checks/version-check?version=1.0.0")
            #expect(try version.decode(Components.Schemas.VersionStatus.self).authType == .oauth2)

            // The database holds the secret sealed, not as its bytes.
            let stored = try #require(try await api.fixture.server.storage.app(id: "checks"))
            let sealed = try #require(stored.authentication.provider?.sealedClientSecret)
            #expect(sealed.range(of: Data(Self.secret.utf8)) == nil)
            #expect(sealed.count > Self.secret.utf8.count)

            // A password no longer signs anyone in to this app.
            let password = try await api.signInReply("alice")
            #expect(password.status == .forbidden)
            #expect(password.code == "OAUTH2_REQUIRED")
            #expect(!api.fixture.logs.text.contains(Self.secret))

            // Back to basic: the password works again, and the provider is gone.
            let basic = try await api.admin(.put, "/admin/apps/checks/authentication", json: #"{"type": "basic"}"#)
            #expect(
                try basic.decode(Components.Schemas.AppAuthentication.self) == .init(_type: .basic, redirectURIs: [])
            )
            #expect(try await api.signInReply("alice").status == .created)
            let basicVersion = try await api.send(.get, "/apps/checks/version-check?version=1.0.0")
            #expect(try basicVersion.decode(Components.Schemas.VersionStatus.self).authType == .basic)
        }
    }

    @Test("a change without a secret keeps it for the same client only")
    func secretKeptForTheSameClient() async throws {
        try await ServerFixture().runSeeded { api in
            func hasSecret(_ body: String) async throws -> Bool? {
                let reply = try await api.admin(.put, "/admin/apps/checks/authentication", json: body)
                try api.expectStatus(reply, .ok)
                return try reply.decode(Components.Schemas.AppAuthentication.self).provider?.hasClientSecret
            }
            let otherClient =
                #"{"type": "oauth2", "provider": {"issuer": "https://login.airline.example", "clientID": "other"}}"#
            let steps: [(body: String, kept: Bool?)] = [
                (#"{"type": "oauth2", "provider": \#(Self.provider)}}"#, false),
                (#"{"type": "oauth2", "provider": \#(Self.provider), "clientSecret": "s1"}}"#, true),
                (#"{"type": "oauth2", "provider": \#(Self.provider), "createsUsers": true}}"#, true),
                (#"{"type": "basic", "provider": \#(Self.provider)}}"#, true),
                (otherClient, false),
                (#"{"type": "oauth2", "provider": \#(Self.provider)}}"#, false),
                (#"{"type": "oauth2"}"#, nil),
            ]
            for step in steps {
                let kept = try await hasSecret(step.body)
                #expect(kept == step.kept, "\(step.body)")
            }
        }
    }

    @Test("a bad change is refused with its reason and changes nothing", arguments: Backend.available)
    func badChanges(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let good = #"{"type": "oauth2", "provider": \#(Self.provider), "clientSecret": "\#(Self.secret)"}}"#
            try api.expectStatus(try await api.admin(.put, "/admin/apps/checks/authentication", json: good), .ok)
            let before = try await api.admin(.get, "/admin/apps/checks/authentication").text

            func provider(
                issuer: String = "https://login.airline.example",
                clientID: String = "c",
                extra: String = ""
            )
                throws -> String
            {
                let fields = [#""issuer": \#(try Self.quoted(issuer))"#, #""clientID": \#(try Self.quoted(clientID))"#]
                return #"{"type": "oauth2", "provider": {\#(fields.joined(separator: ", "))\#(extra)}}"#
            }
            let bad = try [
                provider(issuer: ""), provider(issuer: "not a url"), provider(issuer: "login.airline.example"),
                provider(issuer: "ftp://login.airline.example"), provider(issuer: "http://login.airline.example"),
                provider(issuer: "https://login.airline.example?tenant=1"),
                provider(issuer: "https://login.airline.example#top"),
                provider(issuer: "https://user:pw@login.airline.example"), provider(issuer: "https://"),
                provider(issuer: "https://" + String(repeating: "a", count: 2_048)),
                provider(clientID: ""), provider(clientID: "c\u{7}"),
                provider(clientID: String(repeating: "c", count: 256)),
                provider(extra: #", "clientSecret": """#), provider(extra: #", "clientSecret": "a\u0000b""#),
                provider(extra: #", "clientSecret": "\#(String(repeating: "s", count: 4_097))""#),
                provider(extra: #", "createsUsers": "yes""#),
                #"{"type": "saml"}"#, #"{"provider": {"issuer": "https://x.example", "clientID": "c"}}"#, "{", "[]",
            ]
            for body in bad {
                let reply = try await api.admin(.put, "/admin/apps/checks/authentication", json: body)
                #expect(reply.status == .badRequest, "\(body.prefix(120))")
                #expect(!reply.text.contains(Self.secret))
            }
            let unknownApp = try await api.admin(.put, "/admin/apps/nope/authentication", json: #"{"type": "basic"}"#)
            #expect(unknownApp.status == .notFound)
            #expect(try await api.admin(.get, "/admin/apps/checks/authentication").text == before)
        }
    }

    @Test("http is taken for a provider on a loopback address only")
    func loopbackIssuer() async throws {
        try await ServerFixture().runSeeded { api in
            for issuer in ["http://127.0.0.1:9000", "http://localhost:9000/realms/staff", "http://[::1]:9000"] {
                let body = #"{"type": "oauth2", "provider": {"issuer": "\#(issuer)", "clientID": "c"}}"#
                let reply = try await api.admin(.put, "/admin/apps/checks/authentication", json: body)
                #expect(reply.status == .ok, "\(issuer)")
                // Kept as given: OpenID Connect compares the issuer character for character.
                #expect(try reply.decode(Components.Schemas.AppAuthentication.self).provider?.issuer == issuer)
            }
        }
    }

    @Test("revoking a user's sessions ends them on every device; they can sign in again", arguments: Backend.available)
    func revokeSessions(backend: Backend) async throws {
        try await ServerFixture(backend: backend).runSeeded { api in
            let first = try await api.signIn("alice", device: "device-1")
            let second = try await api.signIn("alice", device: "device-2")
            let bobs = try await api.signIn("bob")
            let revoked = try await api.admin(.delete, "/admin/users/alice/sessions")
            #expect(revoked.status == .noContent)
            for token in [first, second] {
                let reply = try await api.send(.get, "/apps/checks/settings", token: token)
                #expect(reply.status == .unauthorized)
            }
            #expect(try await api.send(.get, "/apps/checks/settings", token: bobs).status == .ok)
            let again = try await api.signIn("alice")
            #expect(try await api.send(.get, "/apps/checks/settings", token: again).status == .ok)
            let unknown = try await api.admin(.delete, "/admin/users/nobody/sessions")
            #expect(unknown.status == .notFound)
            #expect(unknown.code == "USER_NOT_FOUND")
        }
    }

    @Test("the API document states the issuer rule the server applies, and the rule holds")
    func issuerRuleIsTheDocuments() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: try APIDocument.json()) as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        // The admin's provider, and the admin's link of a provider's person to a user.
        // A destination's URL follows the same rule.
        for (schema, property) in [
            ("IdentityProviderChange", "issuer"), ("IdentityLinkCreate", "issuer"), ("DestinationChange", "url"),
        ] {
            let change = try #require(schemas[schema] as? [String: Any])
            let properties = try #require(change["properties"] as? [String: Any])
            let issuer = try #require(properties[property] as? [String: Any])
            #expect(issuer["pattern"] as? String == IssuerURL.pattern, "\(schema)")
        }
        for good in [
            "https://login.airline.example", "https://login.airline.example/realms/staff",
            "https://login.microsoftonline.com/7f2c/v2.0", "https://idp.example:8443/", "http://127.0.0.1:5556",
            "http://localhost/oidc", "http://[::1]:9000",
        ] {
            #expect(IssuerURL.isValid(good), "\(good)")
        }
        for bad in [
            "", "https://", "http://idp.example", "https://idp.example?x=1", "https://idp.example#a",
            "https://u:p@idp.example", "https://idp example", "ftp://idp.example", "HTTPS://idp.example",
            "https://idp.example/a b", "https://idp.example/%2e", "https://" + String(repeating: "a", count: 2_048),
        ] {
            #expect(!IssuerURL.isValid(bad), "\(bad)")
        }
    }

    /// `text` as a JSON string, escaped.
    static func quoted(_ text: String) throws -> String {
        String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
    }
}

import Foundation
import GangwayProtocol
import GangwayServer
import GangwayServerStorage
import GangwayServerTesting
import GangwayTesting
import HTTPTypes
import Testing

/// Operators signing in to the console through the company's OpenID Connect provider,
/// against a real provider on loopback (``TestIdentityProvider``): the admin's link of an
/// operator to a provider's subject, the sign-in that goes through an app's client there,
/// and every way its answer is refused.
@Suite(
    "Operators sign in to the console through the company's OpenID provider, once an admin links them",
    .servingTurn,
    .tags(.postgres),
    .skipsTags
)
struct ConsoleProviderSignInTests {
    static let issuer = "https://login.example.com"

    @Test(
        "an admin links a provider's subject to an operator, once; unlinks it; removing the operator removes it",
        arguments: Backend.available
    )
    func links(backend: Backend) async throws {
        let fixture = try await ServerFixture(backend: backend)
        try await fixture.runSeeded { api in
            _ = try await OperatorsTests.add(api, "ops.ida", role: "viewer")
            _ = try await OperatorsTests.add(api, "ops.jo", role: "admin")
            let link = #"{"issuer": "\#(Self.issuer)", "subject": "s-1"}"#
            let linked = try await api.admin(.post, "/admin/operators/ops.ida/identities", json: link)
            try linked.expect(.created)
            let identity = try linked.decode(Components.Schemas.OperatorIdentity.self)
            #expect(identity.issuer == Self.issuer && identity.subject == "s-1")

            let again = try await api.admin(.post, "/admin/operators/ops.ida/identities", json: link)
            #expect(again.status == .conflict && again.code == "IDENTITY_LINKED")
            #expect(again.text.contains("linked to ops.ida already"))
            let other = try await api.admin(.post, "/admin/operators/ops.jo/identities", json: link)
            #expect(other.status == .conflict && other.text.contains("another operator"), "a subject is one operator")
            let unknown = try await api.admin(.post, "/admin/operators/nobody/identities", json: link)
            #expect(unknown.status == .notFound && unknown.code == "OPERATOR_NOT_FOUND")
            for bad in [
                #"{"issuer": "http://login.example.com", "subject": "s-2"}"#,
                #"{"issuer": "https://login.example.com?x=1", "subject": "s-2"}"#,
                #"{"issuer": "\#(Self.issuer)", "subject": ""}"#,
                #"{"issuer": "\#(Self.issuer)", "subject": "s\u0001"}"#,
                #"{"issuer": "\#(Self.issuer)", "subject": "\#(String(repeating: "s", count: 256))"}"#,
            ] {
                let refused = try await api.admin(.post, "/admin/operators/ops.jo/identities", json: bad)
                #expect(refused.status == .badRequest, "\(bad)")
            }

            let listed = try await api.admin(.get, "/admin/operators").decode([Components.Schemas.Operator].self)
            #expect(listed.first { $0.name == "ops.ida" }?.identities?.map(\.subject) == ["s-1"])
            #expect(listed.first { $0.name == "ops.jo" }?.identities == nil)

            let issuer = Self.issuer.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let wrong = try await api.admin(.delete, "/admin/operators/ops.jo/identities?issuer=\(issuer)&subject=s-1")
            #expect(wrong.status == .notFound && wrong.code == "IDENTITY_NOT_LINKED", "not ops.jo's to remove")
            let control = try await api.admin(
                .delete,
                "/admin/operators/ops.ida/identities?issuer=\(issuer)&subject=s%01"
            )
            #expect(control.status == .notFound, "a subject with a control character was never linked")
            let path = "/admin/operators/ops.ida/identities?issuer=\(issuer)&subject=s-1"
            #expect(try await api.admin(.delete, path).status == .noContent)
            #expect(try await api.admin(.delete, path).status == .notFound)
            #expect(try await fixture.server.storage.operatorRecord(issuer: Self.issuer, subject: "s-1") == nil)

            try await api.admin(.post, "/admin/operators/ops.ida/identities", json: link).expect(.created)
            #expect(
                try await fixture.server.storage.operatorRecord(issuer: Self.issuer, subject: "s-1")?.1.name
                    == "ops.ida"
            )
            try await api.admin(.delete, "/admin/operators/ops.ida").expect(.noContent)
            #expect(
                try await fixture.server.storage.operatorRecord(issuer: Self.issuer, subject: "s-1") == nil,
                "the link went with the operator"
            )
            // The subject is free again: a new operator takes it.
            try await api.admin(.post, "/admin/operators/ops.jo/identities", json: link).expect(.created)
            #expect(try await api.send(.post, "/admin/operators/ops.jo/identities", json: link).status == .unauthorized)

            let actions = try await OperatorsTests.audit(api).map(\.action)
            #expect(
                actions.prefix(6)
                    == [
                        "linkOperatorIdentity", "removeOperator", "linkOperatorIdentity", "unlinkOperatorIdentity",
                        "linkOperatorIdentity", "addOperator",
                    ]
            )
        }
    }

    @Test(
        "the console's operators page: an admin links and unlinks another operator's identity; not their own; a viewer reads"
    )
    func linksInTheConsole() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let admin = try await ConsoleAppsTests.browser(api, fixture, "ops.ada", role: .admin)
            _ = try await OperatorsTests.add(api, "ops.ben", role: "operator")
            let page = try await admin.get("/console/operators")
            #expect(page.text.contains("No operator signs in through a provider."))
            #expect(page.text.contains("<option>ops.ben</option>") && !page.text.contains("<option>ops.ada</option>"))
            let fields = [("action", "link"), ("operator", "ops.ben"), ("issuer", Self.issuer), ("subject", "s-ben")]
            let linked = try await admin.submit(page, to: "/console/operators", fields)
            #expect(linked.status == .seeOther)
            let listed = try await admin.get("/console/operators")
            #expect(
                listed.text.contains(
                    #"<td data-label="Operator">ops.ben</td><td data-label="Issuer">\#(Self.issuer)</td><td data-label="Subject">s-ben</td>"#
                )
            )

            let twice = try await admin.submit(page, to: "/console/operators", fields)
            #expect(twice.status == .conflict && twice.text.contains("linked to ops.ben already"))
            #expect(twice.text.contains(#"value="s-ben""#), "what was typed is kept")
            let http = try await admin.submit(
                page,
                to: "/console/operators",
                [("action", "link"), ("operator", "ops.ben"), ("issuer", "http://x.example"), ("subject", "s")]
            )
            #expect(http.status == .badRequest && http.text.contains("https URL"))
            let own = try await admin.submit(
                page,
                to: "/console/operators",
                [("action", "link"), ("operator", "ops.ada"), ("issuer", Self.issuer), ("subject", "s-ada")]
            )
            #expect(own.status == .forbidden, "no one links a way in for themselves")
            #expect(try await fixture.server.storage.operatorRecord(issuer: Self.issuer, subject: "s-ada") == nil)

            let viewer = try await ConsoleAppsTests.browser(api, fixture, "ops.vic", role: .viewer)
            let read = try await viewer.get("/console/operators")
            #expect(read.text.contains("s-ben") && !read.text.contains(#"value="unlink""#))
            let refused = try await viewer.submit(
                read,
                to: "/console/operators/ops.ben",
                [
                    ("action", "unlink"), ("issuer", Self.issuer), ("subject", "s-ben"),
                ]
            )
            #expect(refused.status == .forbidden)

            let unlinked = try await admin.submit(
                listed,
                to: "/console/operators/ops.ben",
                [
                    ("action", "unlink"), ("issuer", Self.issuer), ("subject", "s-ben"),
                ]
            )
            #expect(unlinked.status == .seeOther)
            #expect(try await fixture.server.storage.operatorRecord(issuer: Self.issuer, subject: "s-ben") == nil)
            let gone = try await admin.submit(
                listed,
                to: "/console/operators/ops.ben",
                [
                    ("action", "unlink"), ("issuer", Self.issuer), ("subject", "s-ben"),
                ]
            )
            #expect(gone.status == .notFound)
            let events = try await OperatorsTests.audit(api)
            #expect(events.prefix(2).map(\.action) == ["unlinkOperatorIdentity", "linkOperatorIdentity"])
            #expect(events.prefix(2).allSatisfy { $0.actor == "ops.ada" && $0.via == .console })
        }
    }

    // MARK: Signing in

    /// The app `checks` signs people in at `provider`; ops.ida, a viewer, is its subject
    /// `idp-ida`.
    static func setUp(_ api: API, _ provider: TestIdentityProvider) async throws {
        try await FederatedSignInTests.setUp(api, provider, createsUsers: false)
        _ = try await OperatorsTests.add(api, "ops.ida", role: "viewer")
        try await api.admin(
            .post,
            "/admin/operators/ops.ida/identities",
            json: #"{"issuer": "\#(provider.issuer)", "subject": "idp-ida"}"#
        ).expect(.created)
    }

    /// A browser on the sign-in page sends itself to the provider: where it is sent.
    static func depart(_ browser: PageBrowser) async throws -> String {
        let page = try await browser.get("/console/sign-in")
        try page.expect(.ok)
        #expect(page.text.contains(#"<a class="button" href="/console/sign-in/provider?app=checks">"#))
        let departure = try await browser.get("/console/sign-in/provider?app=checks")
        try departure.expect(.seeOther)
        let setCookie = try #require(departure.headers[.setCookie])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
        #expect(setCookie.contains("Path=/console/sign-in/callback"))
        return try #require(departure.headers[.location])
    }

    /// The browser back from the provider at `url`.
    static func arrive(_ browser: PageBrowser, _ url: String) async throws -> ServerReply {
        let back = try #require(URLComponents(string: url))
        #expect(back.path == "/console/sign-in/callback")
        return try await browser.get(back.path + "?" + (back.percentEncodedQuery ?? ""))
    }

    @Test(
        "a linked person signs in at the provider and is the operator, with the operator's role; the audit says how",
        .enabled(if: TestIdentityProvider.isInstalled, "needs oidc-provider-mock in .build-oidc/venv (see .ci/run)"),
        arguments: Backend.available
    )
    func signsIn(backend: Backend) async throws {
        try await FederatedSignInTests.withProvider(backend: backend) { fixture, api, provider in
            #expect(
                try await api.send(.get, "/console/sign-in").text.contains("/console/sign-in/provider") == false,
                "no provider is offered while no operator is linked to one"
            )
            try await Self.setUp(api, provider)
            let browser = PageBrowser(api.running)
            let location = try await Self.depart(browser)
            let authorize = try #require(URLComponents(string: location))
            let query = Dictionary(uniqueKeysWithValues: (authorize.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            #expect(location.hasPrefix(provider.issuer))
            #expect(query["client_id"] == FederatedSignInTests.clientID, "the app's client at the provider")
            #expect(query["redirect_uri"] == api.running.url.absoluteString + "/console/sign-in/callback")
            #expect(query["code_challenge_method"] == "S256" && query["nonce"]?.isEmpty == false)

            let back = try await provider.signIn(at: location, subject: "idp-ida")
            let arrival = try await Self.arrive(browser, back)
            try arrival.expect(.ok)
            #expect(arrival.text.contains(#"<meta http-equiv="refresh" content="0; url=/console">"#))
            #expect(arrival.text.contains("You are signed in as ops.ida."))
            let session = try #require(
                arrival.headers[values: .setCookie].first { $0.hasPrefix("gangway_console=") }
            )
            #expect(session.contains("HttpOnly") && session.contains("SameSite=Strict"))
            #expect(browser.cookieJar["gangway_sign_in"] == nil, "the binding is forgotten")
            let overview = try await browser.get("/console")
            try overview.expect(.ok)
            #expect(overview.text.contains("ops.ida (viewer)"))

            // The answer finishes the sign-in once.
            let replayed = try await Self.arrive(browser, back)
            #expect(replayed.status == .badRequest)
            #expect(replayed.text.contains("expired or was already finished"))

            let event = try #require(try await OperatorsTests.audit(api).first)
            #expect(event.action == "signInThroughProvider" && event.actor == "ops.ida" && event.via == .console)
            let code = try #require(URLComponents(string: back)?.queryItems?.first { $0.name == "code" }?.value)
            let token = try #require(browser.cookieJar["gangway_console"])
            #expect(!fixture.logs.text.contains(code) && !fixture.logs.text.contains(token))
            #expect(fixture.logs.text.contains("console session opened"))
        }
    }

    @Test(
        "refused: a subject no operator has, an answer in another browser, a cancel, a spoiled token, another issuer",
        .enabled(if: TestIdentityProvider.isInstalled, "needs oidc-provider-mock in .build-oidc/venv (see .ci/run)")
    )
    func refusals() async throws {
        try await FederatedSignInTests.withProvider { fixture, api, provider in
            try await Self.setUp(api, provider)
            // A person the provider knows, who is no operator.
            let stranger = PageBrowser(api.running)
            let unlinked = try await Self.arrive(
                stranger,
                try await provider.signIn(at: try await Self.depart(stranger), subject: "idp-stranger")
            )
            #expect(unlinked.status == .forbidden)
            #expect(unlinked.text.contains("no operator is linked to you there"))
            #expect(unlinked.text.contains("--subject idp-stranger"), "what an admin needs to link them")
            #expect(stranger.cookieJar["gangway_console"] == nil)

            // The answer taken to another browser signs no one in, and is spent.
            let starter = PageBrowser(api.running)
            let back = try await provider.signIn(at: try await Self.depart(starter), subject: "idp-ida")
            let elsewhere = try await Self.arrive(PageBrowser(api.running), back)
            #expect(elsewhere.status == .badRequest && elsewhere.text.contains("started in another browser"))
            #expect(try await Self.arrive(starter, back).status == .badRequest)
            #expect(starter.cookieJar["gangway_console"] == nil)

            let cancelling = PageBrowser(api.running)
            let cancelled = try await Self.arrive(
                cancelling,
                try await provider.deny(at: try await Self.depart(cancelling))
            )
            #expect(cancelled.status == .forbidden && cancelled.text.contains("cancelled at the sign-in service"))

            let spoiled = PageBrowser(api.running)
            let departure = try await Self.depart(spoiled)
            try await provider.spoilNextIDToken(.claims(["nonce": "another sign-in's nonce"]))
            let forged = try await Self.arrive(spoiled, try await provider.signIn(at: departure, subject: "idp-ida"))
            #expect(forged.status == .badGateway && forged.text.contains("did not pass the server&#39;s checks"))
            #expect(spoiled.cookieJar["gangway_console"] == nil)
            #expect(fixture.logs.text.contains("console sign-in through the provider refused"))

            // RFC 9207: an answer naming another issuer is a mix-up.
            let mixed = PageBrowser(api.running)
            let answer = try await provider.signIn(at: try await Self.depart(mixed), subject: "idp-ida")
            var components = try #require(URLComponents(string: answer))
            components.queryItems =
                (components.queryItems ?? []).filter { $0.name != "iss" }
                + [URLQueryItem(name: "iss", value: "https://evil.example.com")]
            let mixUp = try await Self.arrive(mixed, try #require(components.string))
            #expect(mixUp.status == .badGateway)
            #expect(mixed.cookieJar["gangway_console"] == nil)

            // The app's provider changed while the person was away: the answer is stale.
            let changing = PageBrowser(api.running)
            let away = try await Self.depart(changing)
            let returned = try await provider.signIn(at: away, subject: "idp-ida")
            try await api.admin(
                .put,
                "/admin/apps/checks/authentication",
                json: #"{"type": "oauth2", "provider": {"issuer": "https://login.example.com", "clientID": "c"}}"#
            ).expect(.ok)
            let stale = try await Self.arrive(changing, returned)
            #expect(stale.status == .badRequest && stale.text.contains("expired or was already finished"))
            #expect(changing.cookieJar["gangway_console"] == nil)
            #expect(
                try await OperatorsTests.audit(api).contains { $0.action == "signInThroughProvider" } == false,
                "no one signed in"
            )
        }
    }

    @Test(
        "starting a sign-in: only through an app's provider some operator is linked to; an answer to nothing is refused"
    )
    func departures() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let browser = PageBrowser(api.running)
            let none = try await browser.get("/console/sign-in/provider?app=checks")
            #expect(none.status == .badRequest && none.text.contains("No operator signs in through that provider"))
            // An app with a provider no operator is linked to offers nothing to sign in with.
            try await api.admin(
                .put,
                "/admin/apps/checks/authentication",
                json: #"{"type": "oauth2", "provider": {"issuer": "https://login.example.com", "clientID": "c"}}"#
            ).expect(.ok)
            #expect(try await browser.get("/console/sign-in/provider?app=checks").status == .badRequest)
            for query in ["?app=nothing", "?app=", ""] {
                #expect(try await browser.get("/console/sign-in/provider\(query)").status == .badRequest, "\(query)")
            }
            #expect(try await browser.get("/console/sign-in/callback?state=x&code=y").status == .badRequest)
            #expect(try await browser.get("/console/sign-in/callback").status == .badRequest)
            #expect(try await api.send(.post, "/console/sign-in/provider").status == .methodNotAllowed)
        }
    }

    @Test("the app's sign-in page in the console shows the redirect URI to register for operators")
    func consoleRedirectShown() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let browser = try await ConsoleAppsTests.browser(api, fixture, "ops.kim", role: .viewer)
            let basic = try await browser.get("/console/apps/checks/sign-in")
            #expect(!basic.text.contains("console-redirect"), "no provider, nothing to register")
            try await api.admin(
                .put,
                "/admin/apps/checks/authentication",
                json: #"{"type": "oauth2", "provider": {"issuer": "https://login.example.com", "clientID": "c"}}"#
            ).expect(.ok)
            let page = try await browser.get("/console/apps/checks/sign-in")
            #expect(
                page.text.contains(
                    #"<code id="console-redirect">\#(api.running.url.absoluteString)/console/sign-in/callback</code>"#
                )
            )
        }
    }
}

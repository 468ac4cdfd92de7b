import Foundation
import GangwayConsole
import GangwayProtocol
import GangwayServerStorage
import GangwayServerTesting
import HTTPTypes
import Testing

@testable import GangwayServer

/// The console's signed-in guard is one middleware on the group of every page and form
/// past the sign-in (``ConsoleGuard``): walked here over every route the console has, so
/// a page put on the router outside that group is caught by name.
@Suite(
    "The console's guard: every page and form past the sign-in, and only those, needs a signed-in operator",
    .servingTurn
)
struct ConsoleGuardTests {
    /// What a stranger may reach: the sign-in and what leads to it, the enrolment link's
    /// page, the style sheet and the sign-out (which ends what it finds).
    static let open: Set<String> = [
        ConsolePaths.styleSheet, ConsolePaths.signIn, ConsolePaths.enrol, ConsolePaths.signOut,
        ConsolePaths.providerSignIn, ConsolePaths.providerCallback,
    ]

    /// Every route of the console past the sign-in, with its template's parameters
    /// filled in, and its methods.
    static var guarded: [(path: String, methods: [String])] {
        ConsolePaths.routes.filter { !open.contains($0.key) }.sorted { $0.key < $1.key }.map { route in
            let path = route.key.replacingOccurrences(of: "{username}", with: "alice")
                .replacingOccurrences(of: "{appID}", with: "checks")
                .replacingOccurrences(of: "{registrationID}", with: "no-such-registration")
                .replacingOccurrences(of: "{name}", with: "ops.other")
            return (path, route.value)
        }
    }

    @Test(
        "a stranger is sent to sign in from every page and form past it, even with a good form token; a form without one is refused first"
    )
    func strangersAreSentToSignIn() async throws {
        #expect(Self.guarded.count >= 15, "the console's routes: \(Self.guarded.map(\.path))")
        #expect(!Self.guarded.contains { $0.path.contains("{") }, "a template parameter left unfilled")
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let stranger = PageBrowser(api.running)
            // The stranger's own browser has a good form token: the sign-in page gives one.
            let token = ConsoleAppsTests.formToken(of: try await stranger.get(ConsolePaths.signIn).text)
            #expect(!token.isEmpty)
            let before = try await ConsoleDefenceTests.auditCount(api)
            let sameSite: HTTPFields = [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"]
            for (path, methods) in Self.guarded {
                if methods.contains("get") {
                    let page = try await stranger.get(path)
                    #expect(page.status == .seeOther, "GET \(path): \(page.status)")
                    #expect(page.headers[.location] == ConsolePaths.signIn, "GET \(path)")
                }
                if methods.contains("post") {
                    let sent = try await stranger.post(path, [("form_token", token)], headers: sameSite)
                    #expect(sent.status == .seeOther, "POST \(path): \(sent.status)")
                    #expect(sent.headers[.location] == ConsolePaths.signIn, "POST \(path)")
                    let forged = try await stranger.post(path, [], headers: sameSite)
                    #expect(forged.status == .forbidden, "POST \(path) without a token: \(forged.status)")
                }
            }
            #expect(try await ConsoleDefenceTests.auditCount(api) == before, "a stranger's form was acted on")

            // A cookie that names no session is a stranger's too.
            stranger.setCookie("gangway_console", String(repeating: "A", count: 43))
            let unknown = try await stranger.get(ConsolePaths.root)
            #expect(unknown.status == .seeOther && unknown.headers[.location] == ConsolePaths.signIn)
        }
    }

    @Test("a signed-in viewer reaches every page past the sign-in: the guard lets them through to its handler")
    func operatorsReachEveryPage() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let viewer = try await ConsoleAppsTests.browser(api, fixture, "ops.viewer", role: .viewer)
            for (path, methods) in Self.guarded where methods.contains("get") {
                let page = try await viewer.get(path)
                #expect(page.status == .ok, "GET \(path): \(page.status)")
                // A page names who is signed in; the audit's downloads are its events alone.
                if page.headers[.contentType]?.hasPrefix("text/html") == true {
                    #expect(page.text.contains("ops.viewer"), "GET \(path): the page names who is signed in")
                } else {
                    #expect([ConsolePaths.auditCSV, ConsolePaths.auditJSON].contains(path), "GET \(path)")
                }
            }
        }
    }
}

import Foundation
import GangwayProtocol
import GangwayServerTesting
import HTTPTypes
import Testing

@Suite("A console page's filters: one it does not offer is said on the page, answered 400", .servingTurn)
struct ConsoleFilterTests {
    @Test(
        "an app that is not one, a status, level, period or outcome misspelled, an entity set that cannot be one",
        arguments: [
            ("/console/devices?app=nope", "There is no app &#39;nope&#39;."),
            ("/console/devices?app=checks&status=lockd", "&#39;lockd&#39; is not a status: active, locked, wiped."),
            ("/console/logs?app=checks&level=loud", "&#39;loud&#39; is not a level: trace, debug, info,"),
            ("/console/logs?app=nope&level=info", "There is no app &#39;nope&#39;."),
            ("/console?period=year", "&#39;year&#39; is not a period: day, week, month."),
            ("/console?app=nope", "There is no app &#39;nope&#39;."),
            ("/console/data?app=checks&outcome=maybe", "&#39;maybe&#39; is not a way a change ended:"),
            ("/console/data?app=nope", "There is no app &#39;nope&#39;."),
            ("/console/data?app=checks&set=..", "&#39;..&#39; is not an entity set&#39;s name."),
            ("/console/devices?app=%1B%5B2Jx", #"There is no app &#39;\u{1B}[2Jx&#39;."#),
        ]
    )
    func refused(path: String, message: String) async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let cookie = try await OperatorsTests.consoleCookie(fixture, "ops.vic", role: .viewer)
            let page = try await api.send(.get, path, headers: cookie)
            #expect(page.status == .badRequest, "\(path)")
            #expect(page.text.contains(#"<p class="error" role="alert">"# + message), "\(path): \(page.text)")
        }
    }

    @Test("the filters the pages offer are taken as they are, and an empty one is no filter")
    func accepted() async throws {
        let fixture = try await ServerFixture()
        try await fixture.runSeeded { api in
            let cookie = try await OperatorsTests.consoleCookie(fixture, "ops.vic", role: .viewer)
            for path in [
                "/console/devices?app=checks&status=locked", "/console/devices?app=&status=",
                "/console/logs?app=checks&level=warning", "/console/logs?level=", "/console?period=month&app=checks",
                "/console?app=", "/console/data?app=checks&outcome=conflict&set=checks", "/console/data",
            ] {
                let page = try await api.send(.get, path, headers: cookie)
                #expect(page.status == .ok, "\(path)")
                #expect(!page.text.contains(#"class="error""#), "\(path)")
            }
        }
    }
}

import Foundation
import Testing

@testable import GangwayConsole

@Suite("Console pages: every value is escaped, and each page is a whole document with its form")
struct ConsoleTemplatesTests {
    let templates = ConsoleTemplates()

    @Test("a name with markup is shown as text, on the page and in the attribute it fills")
    func escaping() {
        let hostile = #"<script>alert("x")</script>' onfocus='x"#
        let html = templates.render(SignInPage(formToken: "tok", name: hostile, error: hostile))
        #expect(!html.contains("<script>"))
        #expect(!html.contains("' onfocus='"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onfocus=&#39;x"))
    }

    @Test("the sign-in page: the layout around the form, its token, no script and no inline style")
    func signIn() {
        let html = templates.render(SignInPage(formToken: "form-token-value"))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains(#"<title>Sign in · Gangway console</title>"#))
        #expect(html.contains(#"<form method="post" action="/console/sign-in">"#))
        #expect(html.contains(#"name="form_token" value="form-token-value""#))
        #expect(html.contains(#"autocomplete="one-time-code""#))
        #expect(!html.contains("<script"))
        #expect(!html.contains("style="))
        #expect(!html.contains("<style"))
        #expect(!html.contains("Sign out"), "no one is signed in")
    }

    @Test("a signed-in page shows who is signed in, the sections with the current one marked, and sign-out")
    func signedIn() {
        let who = SignedInOperator(name: "ops.alice", role: "admin", formToken: "t0k", current: "/console")
        let html = templates.render(OverviewPage(signedIn: who, figures: [("Users", 3), ("Apps", 1)]))
        #expect(html.contains("ops.alice (admin)"))
        #expect(html.contains(#"<a href="/console" aria-current="page">Overview</a>"#))
        #expect(html.contains(#"action="/console/sign-out""#))
        #expect(html.contains(#"value="t0k""#))
        #expect(html.contains(#"<span class="label">Users</span> <span class="value">3</span>"#))
    }

    @Test("the enrolment page shows the key and its QR code, and asks for the password twice")
    func enrol() {
        let page = EnrolPage(
            formToken: "f",
            token: "link-token",
            name: "ops.bob",
            secret: "MZXW 6YTB OI",
            qrCode: "data:image/png;base64,AAAA",
            minimumPasswordLength: 12
        )
        let html = templates.render(page)
        #expect(html.contains("Set up ops.bob"))
        #expect(html.contains(#"<code id="secret">MZXW 6YTB OI</code>"#))
        #expect(html.contains(#"src="data:image/png;base64,AAAA""#))
        #expect(html.contains(#"name="token" value="link-token""#))
        #expect(html.contains(#"minlength="12""#))
        #expect(html.components(separatedBy: #"type="password""#).count == 3)
    }
}

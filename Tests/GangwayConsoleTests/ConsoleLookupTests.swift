import GangwayConsole
import Mustache
import Testing

@Suite("The users page's values answer the template's names as their stored properties do")
struct ConsoleLookupTests {
    /// Every stored property of `value`, by its name, is what `child(named:)` answers.
    static func answersEveryProperty(_ value: some MustacheParent) {
        /// `value` itself, or the value an optional holds (`nil` for none).
        func unwrapped(_ value: Any) -> Any? {
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return value }
            return mirror.children.first?.value
        }
        for property in Mirror(reflecting: value).children {
            guard let name = property.label else { continue }
            let stored = unwrapped(property.value).map { String(describing: $0) }
            let answered = value.child(named: name).flatMap(unwrapped).map { String(describing: $0) }
            #expect(answered == stored, "\(type(of: value)).\(name)")
        }
        #expect(value.child(named: "noSuchName") == nil)
    }

    @Test("the users page, its rows, the header and its sections")
    func usersPage() {
        let header = SignedInOperator(name: "ops.ada", role: "admin", formToken: "token", current: "/console/users")
        let row = UsersPage.Row(username: "alice", displayName: "Alice Martin", blocked: true, added: "2026-11-26")
        let page = UsersPage(
            signedIn: header,
            query: "al",
            users: [row],
            canAct: true,
            next: "/console/users?after=alice"
        )
        Self.answersEveryProperty(page)
        Self.answersEveryProperty(row)
        Self.answersEveryProperty(header)
        for section in header.sections { Self.answersEveryProperty(section) }
        let html = ConsoleTemplates().render(page)
        #expect(html.contains(#"<a href="/console/users/alice">alice</a>"#))
        #expect(html.contains(#"<td data-label="Status">blocked</td>"#) && html.contains(#"value="unblock""#))
        #expect(html.contains(#"<a href="/console/users?after=alice" rel="next">Next page</a>"#))
        #expect(html.contains("ops.ada (admin)"))
    }
}

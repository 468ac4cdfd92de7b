import Foundation
import GangwayScreens
import Testing

@Suite("The permission page before the platform's question")
struct PermissionScreenTests {
    @Test(
        "each permission has its own title and a default reason, in English and German",
        arguments: Permission.allCases
    )
    func eachPermissionHasItsTexts(permission: Permission) {
        for locale in ["en_GB", "de_DE"] {
            StringTable.withTable(StringTable(locale: Locale(identifier: locale))) {
                let screen = PermissionScreen(permission: permission)
                #expect(!screen.title.hasPrefix("permission."), "\(locale): a text, not its key")
                #expect(!screen.body.hasPrefix("permission."), "\(locale)")
                #expect(
                    !screen.strings.allow.hasPrefix("permission.") && !screen.strings.notNow.hasPrefix("permission.")
                )
            }
        }
        let titles = Set(Permission.allCases.map { PermissionScreen(permission: $0).title })
        #expect(titles.count == Permission.allCases.count, "no two permissions share a title")
    }

    @Test func theAppsReasonReplacesTheDefault() {
        let screen = PermissionScreen(permission: .camera, reason: "Scan the part's label.")
        #expect(screen.body == "Scan the part's label.")
        #expect(PermissionScreen(permission: .camera).body != screen.body)
    }

    @Test("Allow and Not Now each end the page with that answer")
    func bothAnswersFinish() {
        var screen = PermissionScreen(permission: .location)
        #expect(screen.handle(.allow).outcome == .allow)
        #expect(screen.handle(.notNow).outcome == .notNow)
        #expect(screen.kind == .permission)
    }

    @Test("its place among the pages is never below one, nor past the count")
    func itsPlaceIsClamped() {
        let screen = PermissionScreen(permission: .camera, position: 3, count: 2)
        #expect(screen.position == 3 && screen.count == 3)
        let first = PermissionScreen(permission: .camera, position: 0, count: 0)
        #expect(first.position == 1 && first.count == 1)
    }
}

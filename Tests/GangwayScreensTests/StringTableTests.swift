import Foundation
import GangwayPolicy
import Testing

@testable import GangwayScreens

@Suite("Every screen's texts come from the string table: English, German, and the app's own")
struct StringTableTests {
    static let english = StringTable(locale: Locale(identifier: "en_GB"))
    static let german = StringTable(locale: Locale(identifier: "de_DE"))

    @Test func germanTranslatesEveryEnglishTextWithTheSamePlaceholders() throws {
        let en = StringTable.bundled("en")
        let de = StringTable.bundled("de")
        #expect(en.count > 100, "the English table ships")
        #expect(Set(de.keys) == Set(en.keys))
        let placeholders = /%(?:@|\d*d)/
        for (key, text) in en {
            let german = try #require(de[key])
            #expect(
                german.matches(of: placeholders).map { String($0.output) }.sorted()
                    == text.matches(of: placeholders).map { String($0.output) }.sorted(),
                "\(key)"
            )
        }
    }

    @Test func theLocaleChoosesTheLanguageAndEnglishFillsWhatIsMissing() {
        #expect(Self.english["welcome.title"] == "Welcome")
        #expect(Self.german["welcome.title"] == "Willkommen")
        #expect(StringTable(locale: Locale(identifier: "fr_FR"))["welcome.title"] == "Welcome", "not shipped: English")
        #expect(Self.german.overriding(["welcome.title": "Servus"])["welcome.title"] == "Servus")
        #expect(Self.german["no.such.key"] == "no.such.key")
    }

    @Test(arguments: [
        (["LANG": "de_DE.UTF-8"], "Willkommen"),
        (["LANG": "de_AT"], "Willkommen"),
        (["LC_ALL": "C", "LANG": "de_DE.UTF-8"], "Welcome"),
        (["LC_MESSAGES": "de_DE.UTF-8", "LANG": "en_GB.UTF-8"], "Willkommen"),
        (["LANG": "fr_FR.UTF-8"], "Welcome"),
    ])
    func theSystemLocaleFollowsThePOSIXVariables(environment: [String: String], title: String) {
        #if !canImport(Darwin)
            #expect(StringTable(locale: StringTable.systemLocale(environment: environment))["welcome.title"] == title)
        #endif
    }

    @Test func placeholdersTakeTheirArguments() {
        #expect(StringTable.format("%@ of %@", ["a", "b"]) == "a of b")
        #expect(StringTable.format("%d tries", [3]) == "3 tries")
        #expect(StringTable.format("%2$@ before %1$@", ["a", "b"]) == "b before a")
        #expect(StringTable.format("%d:%02d", [4, 7]) == "4:07")
        #expect(StringTable.format("%d:%02d", [4, 12]) == "4:12")
        #expect(StringTable.format("100%% sure, %@", ["x"]) == "100% sure, x")
        #expect(StringTable.format("a % b and 50%", []) == "a % b and 50%")
        #expect(StringTable.text("passcodeInput.triesLeft").contains("%d"), "with no arguments, as written")
    }

    /// `String(format:)` crashes the process on these; an app's or a translator's mistake
    /// must not.
    @Test func aTemplateThatDoesNotMatchItsArgumentsNeverCrashes() {
        #expect(StringTable.format("%@ and %@", ["one"]) == "one and %@", "a placeholder too many stays")
        #expect(StringTable.format("%3$@", ["a"]) == "%3$@")
        #expect(StringTable.format("%d tries", ["three"]) == "three tries", "text where a number was expected")
        #expect(StringTable.format("%@ left", [3]) == "3 left", "a number where text was expected")
        #expect(StringTable.format("%0$@ %x %s", ["a"]) == "%0$@ %x %s")
        #expect(
            StringTable.format("%@ and %@", ["%@ %d", "x"]) == "%@ %d and x",
            "an argument is never read as a template"
        )
        let table = Self.english.overriding(["passcodeInput.triesLeft": "%@ %@ %@ tries left"])
        StringTable.withTable(table) {
            #expect(
                PasscodeInputScreen(triesLeft: 3, afterWrongPasscode: true).warning?.contains("3 %@ %@ tries left")
                    == true
            )
        }
    }

    @Test func anAppsBundleAddsItsTextsInEachLanguage() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("string-table-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let localization = directory.appendingPathComponent("Localization")
        try FileManager.default.createDirectory(at: localization, withIntermediateDirectories: true)
        try Data(#"{"app.greeting": "Hello", "welcome.title": "Hi there", "app.only": "English only"}"#.utf8)
            .write(to: localization.appendingPathComponent("en.json"))
        try Data(#"{"app.greeting": "Hallo"}"#.utf8).write(to: localization.appendingPathComponent("de.json"))
        let bundle = try #require(Bundle(path: directory.path))

        let english = StringTable(locale: Locale(identifier: "en_GB"), bundles: [bundle])
        #expect(english["app.greeting"] == "Hello")
        #expect(english["welcome.title"] == "Hi there", "the app's bundle replaces Gangway's text")
        let german = StringTable(locale: Locale(identifier: "de_DE"), bundles: [bundle])
        #expect(german["app.greeting"] == "Hallo")
        #expect(german["app.only"] == "English only", "English fills what the app's translation lacks")
        #expect(german["welcome.title"] == "Willkommen", "a language over English, in every bundle")
        #expect(StringTable.bundled("../en", in: bundle).isEmpty, "a language is a code, never a path")
    }

    /// One text of each screen, read under a table that overrides it.
    static let overrides: [(key: String, read: @Sendable () -> String)] = [
        ("welcome.title", { WelcomeScreen.Strings().title }),
        ("signIn.title", { SignInScreen.Strings().title }),
        ("deviceCode.title", { DeviceCodeScreen.Strings().title }),
        ("passcodeCreate.title", { PasscodeCreateScreen.Strings().title }),
        ("passcodeInput.title", { PasscodeInputScreen.Strings().title }),
        ("passcodeChange.title", { PasscodeChangeScreen.Strings().title }),
        ("policy.passcodeToPasscode.headline", { FeedbackScreen(announcing: .passcodeToPasscode).texts.headline }),
        ("feedback.continue", { FeedbackScreen.Texts(title: "", headline: "", detail: "").button }),
        ("userPicker.title", { UserPickerScreen.Strings().title }),
        ("existingUser.alreadyOnboardedTitle", { ExistingUserScreen.Strings().alreadyOnboardedTitle }),
        ("consent.accept", { ConsentScreen.Strings().accept }),
        ("eula.title", { EULAScreen.Strings().title }),
        ("error.title", { ErrorScreen.Strings().title }),
        ("cancel.title", { CancelConfirmation(message: "").title }),
    ]

    @Test func eachScreenReadsTheAppsOverride() {
        let table = Self.english.overriding(
            Dictionary(uniqueKeysWithValues: Self.overrides.map { ($0.key, "app's own \($0.key)") })
        )
        StringTable.withTable(table) {
            for (key, read) in Self.overrides {
                #expect(read() == "app's own \(key)", "\(key)")
            }
        }
        // Outside the scope, the app's table is untouched.
        #expect(WelcomeScreen.Strings().title != "app's own welcome.title")
    }

    @Test func eachScreenSpeaksGerman() {
        StringTable.withTable(Self.german) {
            #expect(WelcomeScreen.Strings().title == "Willkommen")
            #expect(
                PasscodeInputScreen(triesLeft: 3, afterWrongPasscode: true).warning
                    == "Falscher Passcode. Verbleibende Versuche: 3"
            )
            #expect(
                PasscodeCreateScreen(policy: .standard, biometricsAvailable: true, biometricName: "Face ID")
                    .biometricTitle == "Mit Face ID entsperren?"
            )
            #expect(FeedbackScreen(announcing: .passcodeToNone).texts.title == "Passcode-Richtlinie geändert")
            #expect(CancelConfirmation(message: "").confirm == "Ja, abbrechen")
        }
    }
}

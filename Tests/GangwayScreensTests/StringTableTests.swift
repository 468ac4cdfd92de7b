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

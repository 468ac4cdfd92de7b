import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayProtocol
import GangwayServices
import GangwaySystem
import Testing

@testable import GangwayScreens
@testable import GangwayTerminal

@Suite("The terminal app's own texts come from the string table: English, German, and the app's own")
struct TerminalTextTests {
    static let english = StringTable(locale: Locale(identifier: "en_GB"), adding: [TerminalText.tables])
    static let german = StringTable(locale: Locale(identifier: "de_DE"), adding: [TerminalText.tables])

    /// Texts whose German leaves an argument out: where German needs no word for it, and a
    /// refusal's English message, said in German by its code.
    static func leavesArgumentsOut(_ key: String) -> Bool {
        key == "terminal.feedback.pressEnter" || key.hasPrefix("terminal.rejection.")
    }

    @Test func germanTranslatesEveryTerminalTextWithTheSamePlaceholders() throws {
        let en = TerminalText.tables.entries("en")
        let de = TerminalText.tables.entries("de")
        #expect(en.count > 150, "the terminal's English table ships")
        #expect(Set(de.keys) == Set(en.keys))
        #expect(en.keys.allSatisfy { $0.hasPrefix("terminal.") }, "the terminal's keys never replace a screen's")
        let placeholders = /%(?:\d+\$)?(?:@|\d*d)/
        for (key, text) in en where !Self.leavesArgumentsOut(key) {
            let german = try #require(de[key])
            let germanPlaceholders: [String] = german.matches(of: placeholders).map { String($0.output) }.sorted()
            let englishPlaceholders: [String] = text.matches(of: placeholders).map { String($0.output) }.sorted()
            #expect(germanPlaceholders == englishPlaceholders, "\(key)")
        }
    }

    /// The home screen's rows (`Label:` then spaces, then the value) line up in every
    /// language: every label with its padding is 16 columns wide, the column the
    /// continuation lines (`not refreshed: …`) indent to.
    @Test func theHomeScreensRowsLineUpInEveryLanguage() throws {
        for language in ["en", "de"] {
            let table = TerminalText.tables.entries(language)
            var rows = 0
            for (key, text) in table where key.hasPrefix("terminal.home.") || key.hasPrefix("terminal.checks.") {
                guard let row = text.firstMatch(of: /^([^ %][^%:]*:)( +)%/) else { continue }
                rows += 1
                #expect(
                    row.output.0.count - 1 == 16,
                    "\(language) \(key): '\(row.output.1)' pads to \(row.output.0.count - 1)"
                )
            }
            #expect(rows >= 12, "\(language): the rows were found")
        }
    }

    /// Every key the terminal's code reads is in the table (a missing one would show as
    /// its key): the literal keys of `localized(…)` in the module's sources.
    @Test func everyKeyTheCodeReadsIsInTheTable() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/GangwayTerminal")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .allObjects.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 10)
        let keys = Self.english.entries.keys
        var read = 0
        for file in files {
            let source = try String(contentsOf: file, encoding: .utf8)
            for match in source.matches(of: /localized\("([a-zA-Z.]+)"(, count:)?/) {
                read += 1
                let key = "terminal." + match.output.1
                if key.hasSuffix(".") {
                    #expect(keys.contains { $0.hasPrefix(key) }, "\(key)… in \(file.lastPathComponent)")
                } else if match.output.2 != nil {
                    #expect(
                        keys.contains(key + ".one") && keys.contains(key + ".other"),
                        "\(key) in \(file.lastPathComponent)"
                    )
                } else {
                    #expect(keys.contains(key), "\(key) in \(file.lastPathComponent)")
                }
            }
        }
        #expect(read > 100)
    }

    @Test func aRefusalIsSaidByItsCodeNamingItsFields() {
        let refused = ChangeRejection(
            .fieldNotWritable,
            "Devices may not write aircraft, stand in checks.",
            fields: ["aircraft", "stand"]
        )
        let unnamed = ChangeRejection(.fieldNotWritable, "Devices may not write aircraft in checks.")
        let unknown = ChangeRejection(.init(rawValue: "NEW_CODE"), "A reason from a newer server.")
        StringTable.withTable(Self.english) {
            #expect(TerminalText.describe(refused) == "Devices may not write aircraft, stand in checks.")
            #expect(TerminalText.describe(unknown) == "A reason from a newer server.")
        }
        StringTable.withTable(Self.german) {
            #expect(TerminalText.describe(refused) == "Geräte dürfen aircraft, stand nicht schreiben.")
            #expect(
                TerminalText.describe(unnamed) == "Geräte dürfen eines der Felder nicht schreiben.",
                "a server that names no field"
            )
            #expect(
                TerminalText.describe(unknown) == "A reason from a newer server.",
                "unknown: as the server wrote it"
            )
        }
    }

    @Test func aCountChoosesOneOrOther() {
        StringTable.withTable(Self.english) {
            #expect(OfflineCommands.count(1) == "1 change")
            #expect(OfflineCommands.count(3) == "3 changes")
            #expect(OfflineCommands.count(0) == "0 changes")
        }
        StringTable.withTable(Self.german) {
            #expect(OfflineCommands.count(1) == "1 Änderung")
            #expect(OfflineCommands.count(2) == "2 Änderungen")
        }
    }

    /// The texts the home screen, the policy line, the checks and the help read, under a
    /// table that overrides them.
    @Test func theTerminalReadsTheAppsOverride() {
        let table = Self.english.overriding([
            "terminal.reports.notSent": "app's own reports line",
            "terminal.policy.notRequired": "app's own policy line",
            "terminal.checks.pending": "(app's own pending)",
            "terminal.help": "app's own help",
            "terminal.console.choose": "Pick",
            "rule.minimumLength": "app's own %d",
        ])
        StringTable.withTable(table) {
            #expect(HomeScreen.reports(allowed: false, settings: nil) == "app's own reports line")
            #expect(PolicyText.describe(PasscodeRequirement?.none) == "app's own policy line")
            #expect(HomeCommands.help == "app's own help")
            #expect(PasscodeRule.minimumLength(6).text == "app's own 6")
            let entity = AppEntity(id: "c1", fields: ["status": "open"], version: 1, updatedAt: Date(), updatedBy: "x")
            let line = ChecksText.lines([.init(entity: entity, pending: true, needsAttention: false)])
            #expect(line.first?.hasSuffix("(app's own pending)") == true)
        }
        #expect(HomeCommands.help != "app's own help", "outside the scope the app's table is untouched")
    }

    @Test("a check's ID or value longer than its column moves the columns after it, and they stay aligned")
    func longValuesKeepTheChecksAligned() {
        let long = String(repeating: "x", count: 64)
        let entities = [
            Self.check(long, ["aircraft": "A320 F-GKXA", "stand": "12", "item": "fuel", "status": "open"]),
            Self.check(
                "F-GKXA-tyres",
                [
                    "aircraft": "A320 F-GKXA", "stand": "3", "item": "a very long item name here", "status": "done",
                ]
            ),
        ]
        StringTable.withTable(Self.english) {
            let lines = ChecksText.lines(entities.map { .init(entity: $0, pending: false, needsAttention: false) })
            #expect(lines.count == 2)
            #expect(lines[0].hasPrefix(long + " A320 F-GKXA"), "\(lines[0])")
            let columns = lines.map { line in
                ["A320", "stand", line.hasPrefix(long) ? "open" : "done"].compactMap { word in
                    line.range(of: word).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
                }
            }
            #expect(columns[0] == columns[1], "\(lines)")
            #expect(columns[0].first == 65)
        }
    }

    @Test("wide characters take two columns, and the checks stay aligned on a terminal")
    func wideValuesKeepTheChecksAligned() {
        let entities = [
            Self.check("JA01-燃料", ["aircraft": "A320 JA01", "stand": "東3", "item": "燃料の量を確認する作業", "status": "open"]),
            Self.check("F-GKXA-tyres", ["aircraft": "A320 F-GKXA", "stand": "3", "item": "tyres", "status": "done"]),
        ]
        StringTable.withTable(Self.english) {
            let lines = ChecksText.lines(entities.map { .init(entity: $0, pending: false, needsAttention: false) })
            #expect(lines.count == 2)
            let columns = lines.map { line in
                ["A320", "stand", line.hasSuffix("open") ? "open" : "done"].compactMap { word in
                    line.range(of: word).map { TerminalColumns.width(of: line[..<$0.lowerBound]) }
                }
            }
            #expect(columns[0].count == 3)
            #expect(columns[0] == columns[1], "\(lines)")
        }
    }

    /// A check of the demo app's with `fields`.
    static func check(_ id: String, _ fields: [String: String]) -> AppEntity {
        AppEntity(id: id, fields: fields, version: 1, updatedAt: Date(), updatedBy: "x")
    }

    /// The app says "Sie" to the person in German, in the crew's lines as everywhere: no
    /// "du", "dich", "dir" or "dein…" (an option such as `--data-dir` is not a word).
    @Test func germanAddressesThePersonAsSieEverywhere() {
        let informal = /(?i)\b(du|dich|dir|dein|deine|deinen|deinem|deiner|deines)\b/
        let german = TerminalText.tables.entries("de")
        #expect(german.keys.contains { $0.hasPrefix("terminal.crew.") })
        for (key, text) in german {
            let words = text.replacing(/--[a-z-]+/, with: "")
            #expect(words.firstMatch(of: informal) == nil, "\(key): \(text)")
        }
        StringTable.withTable(Self.german) {
            #expect(localized("crew.shift", "06:00-14:00", "12, 14") == "Ihre Schicht: 06:00-14:00, Positionen 12, 14.")
            #expect(localized("crew.noShift") == "Heute keine Schicht für Sie.")
        }
    }

    @Test("times are on the 24-hour clock in every language: 15:05, never 3:05 PM")
    func timesAreOnTheTwentyFourHourClock() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let afternoon = Date(timeIntervalSince1970: 1_795_014_300)  // 2026-11-18 15:05:00 UTC
        for table in [Self.english, Self.german] {
            StringTable.withTable(table) {
                #expect(TerminalTime.time(afternoon, in: utc) == "15:05")
                #expect(TerminalTime.time(afternoon.addingTimeInterval(-12 * 3600), in: utc) == "03:05")
                #expect(TerminalTime.dateAndTime(afternoon.addingTimeInterval(9), in: utc) == "2026-11-18 15:05:09")
            }
        }
    }

    /// The demo's checks in German, where "Position 12" is wider than the English column:
    /// each column starts at the same terminal column in every row, marked or not.
    @Test func germanChecksLineUp() {
        var shown = DemoApp.sampleChecks(at: Date(timeIntervalSince1970: 1_800_000_000)).map {
            OfflineWork.ShownEntity(entity: $0, pending: false, needsAttention: false)
        }
        shown[1].pending = true
        shown[2].needsAttention = true
        StringTable.withTable(Self.german) {
            let lines = ChecksText.lines(shown)
            #expect(lines.count == 5)
            let columns = lines.map { line in
                ["A32", "Position", line.contains(" done") ? "done" : "open"].compactMap { word in
                    line.range(of: word).map { TerminalColumns.width(of: line[..<$0.lowerBound]) }
                }
            }
            #expect(columns.allSatisfy { $0.count == 3 }, "\(lines)")
            #expect(Set(columns).count == 1, "\(lines)")
        }
    }

    /// The shift's notes in German: each note ("stand 14 …") starts at the same terminal
    /// column whoever wrote it, a wide name included, after its time on the 24-hour clock.
    @Test func germanCrewNotesLineUp() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let afternoon = Date(timeIntervalSince1970: 1_795_014_300)  // 2026-11-18 15:05:00 UTC
        let notes = [
            CrewAPI.Note(by: "alice", name: "Alice Martin", text: "stand 14 tyre gauge is here", at: afternoon),
            CrewAPI.Note(by: "bob", name: "Bob Okafor", text: "stand 12 fuel done", at: afternoon - 6 * 3600),
            CrewAPI.Note(by: "taro", name: "山田 太郎", text: "stand 3 walk-around", at: afternoon),
        ]
        StringTable.withTable(Self.german) {
            let lines = CrewNotesText.lines(notes, in: utc)
            let columns = lines.map { line in
                line.range(of: "stand").map { TerminalColumns.width(of: line[..<$0.lowerBound]) }
            }
            #expect(columns.allSatisfy { $0 != nil } && Set(columns).count == 1, "\(lines)")
            #expect(lines.first == "15:05 Alice Martin: stand 14 tyre gauge is here")
            #expect(lines.dropFirst().first?.hasPrefix("09:05 Bob Okafor:   stand 12") == true, "\(lines)")
        }
    }

    @Test func germanPolicyAndChecks() {
        StringTable.withTable(Self.german) {
            #expect(PolicyText.describe(PasscodeRequirement?.none) == "nicht erforderlich")
            #expect(PolicyText.describe(.standard).hasPrefix("mindestens 8 Zeichen"))
        }
    }
}

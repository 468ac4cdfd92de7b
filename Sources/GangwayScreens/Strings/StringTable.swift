import Foundation
import Synchronization

/// Every text a person reads on Gangway's screens, by key: the table the screens'
/// `Strings` take their defaults from.
///
/// Gangway ships English and German as SwiftPM resources (`Localization/en.json`,
/// `Localization/de.json`); the table for a locale is English with that locale's language
/// over it, so a key a translation lacks still reads in English. The app's table starts
/// as the one for the person's locale (``systemLocale(environment:)``). An app replaces or
/// translates any text by laying its own entries over the table:
///
/// ```swift
/// StringTable.use(StringTable(locale: StringTable.systemLocale()).overriding(["welcome.title": "Bienvenue"]))
/// ```
///
/// A screen's `Strings` reads the table when it is made, so what an app changes after that
/// on a `Strings` value (`strings.title = …`) still wins. Tests scope a table to a task
/// with ``withTable(_:operation:)`` instead of changing the app's.
public struct StringTable: Sendable, Hashable {
    /// The texts, by key.
    public private(set) var entries: [String: String]

    public init(entries: [String: String]) {
        self.entries = entries
    }

    /// The bundled table for `locale`: English, with the locale's language over it when
    /// Gangway ships one.
    public init(locale: Locale) {
        var entries = Self.bundled("en")
        if let language = locale.language.languageCode?.identifier, language != "en" {
            entries.merge(Self.bundled(language)) { $1 }
        }
        self.init(entries: entries)
    }

    /// This table with `overrides` laid over it.
    public func overriding(_ overrides: [String: String]) -> StringTable {
        StringTable(entries: entries.merging(overrides) { $1 })
    }

    /// The text under `key`; the key itself when the table has none, so a missing text
    /// shows where it is missing rather than nothing.
    public subscript(key: String) -> String { entries[key] ?? key }

    /// The languages Gangway ships, as language codes.
    public static let shippedLanguages = ["en", "de"]

    /// The table the screens read now: the one scoped to the task, or the app's.
    public static var current: StringTable { scoped ?? appTable.withLock { $0 } }

    /// The text under `key` in ``current``.
    public static func text(_ key: String) -> String { current[key] }

    /// Makes `table` the app's: every `Strings` made from now on reads it.
    public static func use(_ table: StringTable) {
        appTable.withLock { $0 = table }
    }

    /// Runs `operation` with `table` as the current one for this task and its children.
    public static func withTable<Result: Sendable>(
        _ table: StringTable,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $scoped.withValue(table, operation: operation)
    }

    /// Runs `operation` with `table` as the current one, synchronously.
    public static func withTable<Result>(_ table: StringTable, operation: () throws -> Result) rethrows -> Result {
        try $scoped.withValue(table, operation: operation)
    }

    @TaskLocal private static var scoped: StringTable?
    private static let appTable = Mutex(StringTable(locale: systemLocale()))

    /// The person's locale: Foundation's, or on Linux, where Foundation does not read
    /// them, the POSIX variables in their order of precedence (`LC_ALL`, `LC_MESSAGES`,
    /// `LANG`; `de_DE.UTF-8` is German, `C` and `POSIX` English).
    public static func systemLocale(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Locale {
        #if canImport(Darwin)
            return .current
        #else
            for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
                guard let value = environment[name], !value.isEmpty else { continue }
                let identifier = value.split(separator: ".").first.map(String.init) ?? value
                return ["C", "POSIX"].contains(identifier) ? Locale(identifier: "en") : Locale(identifier: identifier)
            }
            return .current
        #endif
    }

    /// The entries of a shipped language, or none.
    static func bundled(_ language: String) -> [String: String] {
        guard shippedLanguages.contains(language),
            let url = Bundle.module.url(forResource: language, withExtension: "json", subdirectory: "Localization"),
            let data = try? Data(contentsOf: url),
            let entries = try? JSONDecoder().decode([String: String].self, from: data)
        else { return [:] }
        return entries
    }
}

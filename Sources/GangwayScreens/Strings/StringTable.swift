import Foundation
import Synchronization

/// Every text a person reads on Gangway's screens, by key: the table the screens'
/// `Strings` take their defaults from.
///
/// Gangway ships English and German (`Localization/en.json`, `Localization/de.json`,
/// built into the module's code, so the binary needs no resource bundle); the table for a
/// locale is English with that locale's language over it, so a key a translation lacks
/// still reads in English. An app with texts of its
/// own ships them the same way in its own bundle and adds it (``init(locale:bundles:)``).
/// The app's table starts as the one for the person's locale
/// (``systemLocale(environment:)``). An app replaces or translates any text by laying its
/// own entries over the table:
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

    /// The bundled table for `locale`: English, with the locale's language over it where
    /// it is shipped, from Gangway's own tables and then each of `bundles` (their
    /// `Localization/LANGUAGE.json` files, which add keys or replace Gangway's).
    public init(locale: Locale, bundles: [Bundle] = []) {
        self.init(locale: locale, adding: bundles.map(Source.bundle))
    }

    /// The bundled table for `locale`, from Gangway's own tables and then each of `sources`.
    public init(locale: Locale, adding sources: [Source]) {
        let all = [Source.files(EmbeddedResources.files)] + sources
        var entries: [String: String] = [:]
        for source in all { entries.merge(source.entries("en")) { $1 } }
        if let language = locale.language.languageCode?.identifier, language != "en" {
            for source in all { entries.merge(source.entries(language)) { $1 } }
        }
        self.init(entries: entries)
    }

    /// Where a module's texts are shipped: `Localization/LANGUAGE.json` files in a bundle,
    /// or built into the module's code (as Gangway's own are, so its binary needs no
    /// bundle beside it).
    public struct Source: Sendable {
        private let read: @Sendable (String) -> Data?

        /// The `Localization/LANGUAGE.json` files of `bundle`.
        public static func bundle(_ bundle: Bundle) -> Source {
            Source { language in
                bundle.url(forResource: language, withExtension: "json", subdirectory: "Localization")
                    .flatMap { try? Data(contentsOf: $0) }
            }
        }

        /// Files' texts by their path (`Localization/LANGUAGE.json`), as a module built
        /// them in.
        public static func files(_ files: [String: String]) -> Source {
            Source { language in files["Localization/\(language).json"].map { Data($0.utf8) } }
        }

        /// The entries of `language`, or none (a language is a code, never a path).
        func entries(_ language: String) -> [String: String] {
            guard !language.isEmpty, language.allSatisfy({ $0.isASCII && $0.isLetter }), let data = read(language),
                let entries = try? JSONDecoder().decode([String: String].self, from: data)
            else { return [:] }
            return entries
        }
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

    /// The text under `key` in ``current``, with `arguments` in its placeholders (see
    /// ``format(_:_:)``); with no arguments, the text as written, so a template read into a
    /// screen's `Strings` keeps its placeholders for later.
    public static func text(_ key: String, _ arguments: any CustomStringConvertible...) -> String {
        text(key, arguments: arguments)
    }

    /// The text under `key` in ``current``, with `arguments` in its placeholders.
    public static func text(_ key: String, arguments: [any CustomStringConvertible]) -> String {
        arguments.isEmpty ? current[key] : format(current[key], arguments)
    }

    /// `template` with `arguments` in its placeholders: `%@` and `%d` take the next
    /// argument, `%2$@` the second, `%02d` pads a number with zeros to two digits, `%%` is
    /// a percent sign.
    ///
    /// Unlike `String(format:)`, a template that does not match its arguments (an app's or
    /// a translator's mistake: a placeholder too many, `%@` for a number) never crashes
    /// the app: a placeholder with no argument stays as written, and any argument reads as
    /// text.
    public static func format(_ template: String, _ arguments: [any CustomStringConvertible]) -> String {
        var result = ""
        var next = 0
        var rest = template[...]
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            let specifier = rest[rest.index(after: percent)...]
            guard let match = specifier.prefixMatch(of: /(?:(\d+)\$)?(0?\d*)([@d%])/) else {
                result += "%"
                rest = specifier
                continue
            }
            rest = specifier[match.range.upperBound...]
            if match.output.3 == "%" {
                result += "%"
                continue
            }
            let index: Int
            if let position = match.output.1.flatMap({ Int($0) }) {
                index = position - 1
            } else {
                index = next
                next += 1
            }
            guard arguments.indices.contains(index) else {
                result += "%" + specifier[..<match.range.upperBound]
                continue
            }
            var text = arguments[index].description
            if match.output.3 == "d", match.output.2.hasPrefix("0"), let width = Int(match.output.2), Int(text) != nil {
                text = String(repeating: "0", count: max(0, width - text.count)) + text
            }
            result += text
        }
        return result + rest
    }

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

    /// The entries of `language` in Gangway's own tables, or none.
    static func bundled(_ language: String) -> [String: String] {
        Source.files(EmbeddedResources.files).entries(language)
    }

    /// The entries of `language` in `bundle`, or none.
    static func bundled(_ language: String, in bundle: Bundle) -> [String: String] {
        Source.bundle(bundle).entries(language)
    }
}

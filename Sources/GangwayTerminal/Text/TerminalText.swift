import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayScreens
import GangwayServices

/// The terminal app's own texts: its prompts, home screen and command answers, under
/// `terminal.` keys in this module's `Localization/en.json` and `de.json`.
///
/// The device app makes ``table`` the app's string table when it starts, so an app that
/// overrides a `terminal.` key (or any screen's) is read as it is everywhere else. A
/// text read before that, or in a process that never runs the device app (`gangway
/// admin` describing a policy), comes from the bundled table of the person's locale.
enum TerminalText {
    /// Gangway's screens' texts and the terminal's, for the person's locale.
    static let table = StringTable(locale: StringTable.systemLocale(), adding: [tables])

    /// The terminal's `Localization/` tables, built into the module.
    static let tables = StringTable.Source.files(EmbeddedResources.files)

    /// The text under `terminal.KEY`, with `arguments` in its placeholders (as
    /// ``StringTable/text(_:arguments:)`` reads a key).
    static func text(_ key: String, arguments: [any CustomStringConvertible]) -> String {
        let template = template(key) ?? "terminal." + key
        return arguments.isEmpty ? template : StringTable.format(template, arguments)
    }

    /// The template under `terminal.KEY`: the app's table's, or the bundled one's.
    private static func template(_ key: String) -> String? {
        StringTable.current.entries["terminal." + key] ?? table.entries["terminal." + key]
    }

    /// Why a change was refused, as the person reads it: the table's text for its code
    /// (`terminal.rejection.CODE`, with the message, which names no value, as its first
    /// argument and the fields it names as its second, or `terminal.rejection.fieldsUnnamed`
    /// when it names none), or the message as the server or the device's rules wrote it
    /// for a code the table does not know.
    static func describe(_ rejection: ChangeRejection) -> String {
        guard let template = template("rejection." + rejection.code.rawValue) else { return rejection.message }
        let fields =
            rejection.fields.isEmpty
            ? localized("rejection.fieldsUnnamed") : rejection.fields.joined(separator: ", ")
        return StringTable.format(template, [rejection.message, fields])
    }

    /// `text` as a sentence: ending with one full stop (or its own `!` or `?`), for a
    /// template that goes on after it.
    static func sentence(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return trimmed }
        return ".!?".contains(last) ? trimmed : trimmed + "."
    }

    /// `error` as the person reads it: from the string table where the error has a
    /// message there (a service's, a flow's, a declined agreement), its description
    /// otherwise.
    static func describe(_ error: any Error) -> String {
        switch DeviceApp.cause(of: error) {
        case let error as ServiceFlowError: error.message
        case let error as ConsentError: error.message
        case let error: "\(error)"
        }
    }
}

/// The terminal's text under `terminal.KEY`, with `arguments` in its placeholders.
func localized(_ key: String, _ arguments: any CustomStringConvertible...) -> String {
    TerminalText.text(key, arguments: arguments)
}

/// The terminal's text for a count: `terminal.KEY.one` for one, `terminal.KEY.other` for
/// any other, with `count` as the first argument.
func localized(_ key: String, count: Int, _ arguments: any CustomStringConvertible...) -> String {
    TerminalText.text(key + (count == 1 ? ".one" : ".other"), arguments: [count] + arguments)
}

import Foundation
import GangwayProtocol
import GangwaySystem
import GangwayTerminal

/// What `gangway serve` takes from a configuration file (`--config FILE`, JSON) and from
/// environment variables (`GANGWAY_PORT`, `GANGWAY_DATA_DIR`, …) beside its command line.
///
/// Each setting is one of serve's options, named as the option is without its dashes, and
/// means what the option means: the file and the environment are turned into options put
/// before the command line's (``arguments(_:environment:)``), so one parser checks them
/// all, and what comes later wins: the command line over the environment, the
/// environment over the file, the file over the defaults.
///
/// Written by hand rather than with swift-configuration: a key the file does not know (a
/// typo) or a value of the wrong type is refused in one sentence naming it, where a
/// reader of typed keys passes over both in silence; the file is read only when no other
/// account can write it; and nothing in the environment makes the reading write a file of
/// its own (swift-configuration's reader logs its accesses to a file the environment
/// names).
///
/// What would weaken the server (a cheaper password hash, a believed proxy, the figures
/// on another address) is not read from the environment (``notFromEnvironment``).
/// Secrets come from files only: a PostgreSQL URL with a password is refused from the
/// file and the environment (give `postgres-file`), and the server key, the admin token
/// and the URL's file are files already. The one-time actions (`--demo`, `--demo-checks`,
/// `--restore`, `--new-admin-token`) are no settings: they come from the command line
/// alone, so a variable left in an environment never seeds demo users into a server.
enum ServeSettings {
    /// How a setting is written as options.
    enum Kind: Sendable {
        /// `--name VALUE`: a string or a number.
        case value
        /// `--name VALUE`: a whole number (or a string of one, as the environment gives it).
        case wholeNumber
        /// `--name VALUE`: a number (or a string of one).
        case number
        /// `--name` when true.
        case flag
        /// `--name VALUE` once per value: a list of strings, or one string.
        case list
    }

    /// Where the settings of this process's `serve` came from (``arguments(_:environment:)``),
    /// for `serve --check-config`.
    @TaskLocal static var origins: [String: Origin] = [:]

    /// The settings, by name.
    static let kinds: [String: Kind] = [
        "host": .value, "port": .wholeNumber, "console-port": .wholeNumber, "console-host": .value,
        "metrics-port": .wholeNumber, "metrics-host": .value, "data-dir": .value, "postgres": .value,
        "postgres-file": .value, "wait-for-database": .wholeNumber, "drain-seconds": .wholeNumber,
        "grace-seconds": .wholeNumber, "cache-seconds": .wholeNumber, "public-url": .value,
        "bcrypt-cost": .wholeNumber, "key-file": .value, "trusted-proxy": .list, "public-destinations-only": .flag,
        "rotate-keys-days": .wholeNumber, "key-publish-seconds": .wholeNumber, "log-level": .value,
        "otlp-endpoint": .value, "trace-sample-ratio": .number,
    ]

    /// The options that are actions, not settings: from the command line alone.
    static let actions = ["demo", "demo-checks", "restore", "new-admin-token"]

    /// The settings that would weaken the server if an environment set them: a cheaper
    /// password hash, a proxy whose `X-Forwarded-For` is believed (the sign-in throttle
    /// then counts whatever address a caller writes), the operator's figures on another
    /// address. They come from the command line or the file, which the operator writes;
    /// their variables are not read, and serve says so.
    static let notFromEnvironment: Set<String> = ["bcrypt-cost", "trusted-proxy", "metrics-host"]

    /// The variables of `environment` that name a setting it does not read
    /// (``notFromEnvironment``), by name.
    static func ignoredVariables(in environment: [String: String]) -> [String] {
        notFromEnvironment.map(variable).filter { environment[$0] != nil }.sorted()
    }

    /// What serve says of `environment`'s variables that look meant for it but set
    /// nothing: an action's (`GANGWAY_RESTORE`: actions come from the command line alone)
    /// and one a letter or two from a setting's (`GANGWAY_PROT`), with the one it likely
    /// meant. Other `GANGWAY_` variables are left alone: other commands and programs have
    /// theirs.
    static func unreadVariables(in environment: [String: String]) -> [String] {
        let settings = kinds.keys.map(variable)
        var said: [String] = []
        for name in environment.keys.sorted() where name.hasPrefix("GANGWAY_") && !settings.contains(name) {
            let shown = TextRules.shown(name, limit: 60)
            if let action = actions.first(where: { variable($0) == name }) {
                said.append("\(shown) is not read: --\(action) is an action, given on the command line only.")
                continue
            }
            if let option = ["config", "check-config"].first(where: { variable($0) == name }) {
                said.append("\(shown) is not read: --\(option) is given on the command line only.")
                continue
            }
            var nearest: (variable: String, edits: Int)?
            for setting in settings.sorted() {
                let edits = ClosestWord.distance(name, setting)
                if edits <= 2, edits < nearest?.edits ?? .max { nearest = (setting, edits) }
            }
            guard let meant = nearest?.variable else { continue }
            if notFromEnvironment.contains(where: { variable($0) == meant }) {
                said.append(
                    "\(shown) is no setting of serve, and \(meant), which it looks meant for, is not read from the "
                        + "environment either: give it on the command line or in --config."
                )
            } else {
                said.append("\(shown) is no setting of serve; did you mean \(meant)?")
            }
        }
        return said
    }

    /// The environment variable of a setting: `GANGWAY_` and its name in capitals, `_` for
    /// `-`.
    static func variable(_ name: String) -> String {
        "GANGWAY_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// Where a setting's value came from.
    enum Origin: Sendable, Hashable, CustomStringConvertible {
        case commandLine
        case environment(String)
        case file(String)
        case unset

        var description: String {
            switch self {
            case .commandLine: "command line"
            case .environment(let variable): variable
            case .file(let path): path
            case .unset: "default"
            }
        }
    }

    /// Why a configuration was refused: one sentence.
    struct Refusal: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// The options serve's command line `arguments` (after `serve`) stand for, with the
    /// configuration file they name (`--config FILE`, the last one) and `environment`'s
    /// settings put before them; and where each setting came from.
    static func arguments(
        _ arguments: [String],
        environment: [String: String]
    ) throws(Refusal) -> (arguments: [String], origins: [String: Origin]) {
        var origins: [String: Origin] = [:]
        var prefix: [String] = []
        if let path = configFile(in: arguments) {
            let settings = try read(path)
            for name in settings.keys.sorted() {
                prefix += try options(name, settings[name]!, from: "--config \(path)")
                origins[name] = .file(path)
            }
        }
        for name in kinds.keys.sorted() where !notFromEnvironment.contains(name) {
            let variable = variable(name)
            guard let text = environment[variable] else { continue }
            origins[name] = .environment(variable)
            // GANGWAY_LOG_LEVEL is every command's, read where logging starts.
            if name == "log-level" { continue }
            prefix += try options(name, text, from: variable)
        }
        for argument in arguments where argument.hasPrefix("--") {
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            if kinds[name] != nil { origins[name] = .commandLine }
        }
        return (prefix + arguments, origins)
    }

    /// The file the last `--config` names, if any.
    static func configFile(in arguments: [String]) -> String? {
        var file: String?
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "--config", index + 1 < arguments.endIndex {
                file = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--config=") {
                file = String(argument.dropFirst("--config=".count))
            }
            index += 1
        }
        return file
    }

    /// The settings of the file at `path`: a JSON object of settings, read only when
    /// its owner is this account and no other may write it.
    static func read(_ path: String) throws(Refusal) -> [String: Any] {
        guard !path.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw Refusal(description: "--config must name a file of settings")
        }
        let data: Data?
        do {
            data = try PrivateFiles.read(URL(fileURLWithPath: path))
        } catch {
            throw Refusal(description: "--config: \(error)")
        }
        guard let data else { throw Refusal(description: "--config \(path): there is no such file") }
        guard let object = try? JSONSerialization.jsonObject(with: data), let settings = object as? [String: Any]
        else {
            throw Refusal(description: "--config \(path): not a JSON object of settings, such as {\"port\": 8443}")
        }
        let lax = laxities(in: data)
        // JSON's readers keep the last of a name given twice: the operator who edits the
        // first would see no change.
        if let repeated = lax.repeatedNames.first {
            let shown = TextRules.shown(repeated, limit: 60)
            throw Refusal(description: "--config \(path): \(shown) is set twice; keep one")
        }
        // Foundation's reader takes a comma before a closing bracket; JSON, and the other
        // programs that read the file (jq, an editor's checker), do not.
        if let line = lax.trailingCommaLine {
            throw Refusal(
                description: "--config \(path): line \(line) ends a list or object with a comma, which JSON does not "
                    + "allow; remove it"
            )
        }
        for name in settings.keys.sorted() where kinds[name] == nil {
            let shown = TextRules.shown(name, limit: 60)
            if actions.contains(name) {
                throw Refusal(description: "--config \(path): \(shown) is an action, given on the command line only")
            }
            let meant = ClosestWord.to(name, among: kinds.keys.sorted()).map { "; did you mean \($0)?" }
            throw Refusal(
                description: "--config \(path): no setting \(shown)" + (meant ?? "; the settings are serve's options")
            )
        }
        return settings
    }

    /// What the JSON of `data`, which Foundation's reader took, has that JSON does not
    /// allow or that reads other than its writer meant.
    struct Laxities {
        /// The names the top object gives more than once, in the order of their second time.
        var repeatedNames: [String] = []
        /// The line (from 1) of the first comma before a closing bracket.
        var trailingCommaLine: Int?
    }

    /// The ``Laxities`` of `data`, JSON that was read.
    static func laxities(in data: Data) -> Laxities {
        let bytes = [UInt8](data)
        var (depth, expectingName) = (0, false)
        var (seen, found) = (Set<String>(), Laxities())
        // The last byte outside a string that is not white space, and where it is.
        var (last, lastIndex): (UInt8?, Int) = (nil, 0)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(byte) {
                if [UInt8(ascii: "}"), UInt8(ascii: "]")].contains(byte), last == UInt8(ascii: ","),
                    found.trailingCommaLine == nil
                {
                    found.trailingCommaLine = bytes[..<lastIndex].count { $0 == UInt8(ascii: "\n") } + 1
                }
                (last, lastIndex) = (byte, index)
            }
            switch byte {
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                end = min(end, bytes.count - 1)
                if depth == 1, expectingName,
                    let name = try? JSONSerialization.jsonObject(
                        with: Data(bytes[index...end]),
                        options: .fragmentsAllowed
                    ) as? String,
                    !seen.insert(name).inserted, !found.repeatedNames.contains(name)
                {
                    found.repeatedNames.append(name)
                }
                expectingName = false
                index = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                expectingName = depth == 1 && bytes[index] == UInt8(ascii: "{")
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                expectingName = depth == 1
            default:
                break
            }
            index += 1
        }
        return found
    }

    /// The options of setting `name` with `value`, from `source` (for a message).
    private static func options(_ name: String, _ value: Any, from source: String) throws(Refusal) -> [String] {
        let option = "--" + name
        func refuse(_ expected: String) -> Refusal {
            Refusal(description: "\(source): \(name) must be \(expected)")
        }
        let kind = kinds[name] ?? .value
        switch kind {
        case .flag:
            if isBoolean(value), let flag = value as? Bool { return flag ? [option] : [] }
            if let text = value as? String, ["true", "false"].contains(text) { return text == "true" ? [option] : [] }
            throw refuse("true or false")
        case .list:
            if let text = value as? String { return [option, text] }
            guard let values = value as? [Any], values.allSatisfy({ $0 is String }) else {
                throw refuse("a list of strings")
            }
            return values.flatMap { [option, $0 as! String] }
        case .value, .wholeNumber, .number:
            // A number may be written as a string (as the environment gives it); a name,
            // an address or a path is a string only.
            let text: String
            if kind != .value, let number = value as? NSNumber, !isBoolean(value) {
                text = number.stringValue
            } else if let string = value as? String {
                text = string
            } else {
                throw refuse(kind == .value ? "a string" : "a string or a number")
            }
            // The parser's own refusal would name neither the setting's source nor it; a
            // number is read as written, spaces around it aside.
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if kind == .wholeNumber, Int(trimmed) == nil { throw refuse("a whole number") }
            if kind == .number, Double(trimmed) == nil { throw refuse("a number") }
            if kind != .value { return [option, trimmed] }
            if name == "postgres", WebURL.password(in: text) != nil {
                throw Refusal(
                    description:
                        "\(source): a PostgreSQL URL with a password belongs in a file of yours: give postgres-file"
                )
            }
            return [option, text]
        }
    }

    /// Whether a JSON value is `true` or `false` (Foundation reads both, and the numbers,
    /// as `NSNumber`; a boolean is the one of type `c`).
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    /// `message` about an option, with where its value came from when that was not the
    /// command line: `--port must be between 0 and 65535 (set by GANGWAY_PORT).`
    static func naming(origins: [String: Origin], in message: String) -> String {
        guard let range = message.firstRange(of: /--[a-z-]+/) else { return message }
        let name = String(message[range].dropFirst(2))
        let origin: String
        switch origins[name] {
        case .environment(let variable): origin = " (set by \(variable))"
        case .file(let path): origin = " (set in \(path))"
        default: return message
        }
        return message.hasSuffix(".") ? message.dropLast() + origin + "." : message + origin
    }
}

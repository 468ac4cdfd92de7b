import Foundation

extension PasscodePolicy {
    /// Reads a passcode policy, leniently, from settings JSON a person wrote by hand
    /// (`gangway store init --policy-json`).
    ///
    /// The server's settings exchange is typed and reaches the device through
    /// GangwayProtocol's mapping of its generated types; this reader is for hand-written
    /// documents only. It accepts the whole settings document
    /// (`{"mobileservices": {"settingsExchange": {"passwordPolicy": {…}}}}`), its
    /// `settingsExchange` part, or the bare `passwordPolicy` object. Numbers and booleans
    /// may arrive as strings (`"8"`, `"true"`). Keys the document leaves out keep the
    /// values of `defaults`; unknown keys are ignored, so a newer server does not break
    /// an older client.
    ///
    /// - Returns: The policy, or `nil` when the document has no policy or turns the
    ///   passcode off (`passwordPolicyEnabled: false`).
    /// - Throws: ``PasscodePolicyError`` naming the key at fault.
    public static func fromSettings(
        _ json: Data,
        defaults: PasscodePolicy = .standard
    ) throws(PasscodePolicyError) -> PasscodePolicy? {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: json)
        } catch {
            throw .malformedJSON("the document is not valid JSON")
        }
        guard let root = document.objectValue else {
            throw .malformedJSON("the document is not a JSON object")
        }
        guard let object = try policyObject(in: root) else { return nil }
        var reader = SettingsReader(object: object)
        if try reader.bool(SettingsKey.enabled) == false { return nil }

        var settings: [String: SettingValue] = [:]
        for field in fields {
            switch field.kind {
            case .number: if let value = reader.readInt(field.key) { settings[field.key] = .number(value) }
            case .flag: if let value = reader.readBool(field.key) { settings[field.key] = .flag(value) }
            }
        }
        if let error = reader.firstError { throw error }
        return try PasscodePolicy(settings: settings, defaults: defaults)
    }

    private static func policyObject(
        in root: [String: JSONValue]
    ) throws(PasscodePolicyError) -> [String: JSONValue]? {
        var level = root
        for key in ["mobileservices", "settingsExchange"] {
            guard let value = level[key] else { continue }
            guard let object = value.objectValue else {
                throw .malformedJSON("\(key) is not a JSON object")
            }
            level = object
        }
        if let value = level["passwordPolicy"] {
            if value == .null { return nil }
            guard let object = value.objectValue else {
                throw .malformedJSON("passwordPolicy is not a JSON object")
            }
            return object
        }
        return level.keys.contains(where: { $0.hasPrefix("passwordPolicy") }) ? level : nil
    }
}

/// Reads loosely typed settings values, remembering the first type error.
private struct SettingsReader {
    let object: [String: JSONValue]
    var firstError: PasscodePolicyError?

    /// The number under `key`, if any; a value of another type is remembered as the
    /// first error.
    mutating func readInt(_ key: String) -> Int? {
        do {
            return try int(key)
        } catch {
            firstError = firstError ?? error
            return nil
        }
    }

    /// The flag under `key`, if any; a value of another type is remembered as the first
    /// error.
    mutating func readBool(_ key: String) -> Bool? {
        do {
            return try bool(key)
        } catch {
            firstError = firstError ?? error
            return nil
        }
    }

    func int(_ key: String) throws(PasscodePolicyError) -> Int? {
        switch object[key] {
        case nil, .null: return nil
        case .integer(let value): return value
        case .number(let value) where value.rounded() == value && abs(value) < 1e15: return Int(value)
        case .string(let text):
            if let value = Int(text.trimmingCharacters(in: .whitespaces)) { return value }
            throw .wrongType(key: key, expected: "a whole number")
        default:
            throw .wrongType(key: key, expected: "a whole number")
        }
    }

    func bool(_ key: String) throws(PasscodePolicyError) -> Bool? {
        switch object[key] {
        case nil, .null: return nil
        case .bool(let value): return value
        case .integer(0): return false
        case .integer(1): return true
        case .string(let text):
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: throw .wrongType(key: key, expected: "true or false")
            }
        default:
            throw .wrongType(key: key, expected: "true or false")
        }
    }
}

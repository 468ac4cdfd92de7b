import Foundation
import GangwayPolicy
import GangwayProtocol
import Testing

@Suite("The passcode policy on the wire: one mapping, one set of ranges")
struct PasscodePolicyWireTests {
    typealias Wire = Components.Schemas.PasswordPolicy
    typealias Key = PasscodePolicy.SettingsKey

    /// The `minimum` and `maximum` the API document states for each policy key.
    static func documentRanges() throws -> [String: ClosedRange<Int>] {
        let document = try #require(try JSONSerialization.jsonObject(with: APIDocument.json()) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let properties = try #require((schemas["PasswordPolicy"] as? [String: Any])?["properties"] as? [String: Any])
        var ranges: [String: ClosedRange<Int>] = [:]
        for (key, value) in properties {
            guard let schema = value as? [String: Any], let low = schema["minimum"] as? Int,
                let high = schema["maximum"] as? Int
            else { continue }
            ranges[key] = low...high
        }
        return ranges
    }

    @Test func theDocumentStatesThePolicysOwnRanges() throws {
        let expected: [String: ClosedRange<Int>] = [
            Key.minimumLength: PasscodePolicy.Limits.minimumLength,
            Key.minimumUniqueCharacters: PasscodePolicy.Limits.minimumUniqueCharacters,
            Key.retryLimit: PasscodePolicy.Limits.retryLimit,
            Key.lockTimeout: PasscodePolicy.Limits.lockTimeoutSeconds,
            Key.expiresInDays: PasscodePolicy.Limits.expiresAfterDays,
            Key.historySize: PasscodePolicy.Limits.historyCount,
        ]
        #expect(try Self.documentRanges() == expected)
    }

    @Test func theDocumentNamesEveryKeyThePolicyReads() throws {
        let document = try #require(try JSONSerialization.jsonObject(with: APIDocument.json()) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let properties = try #require((schemas["PasswordPolicy"] as? [String: Any])?["properties"] as? [String: Any])
        let keys = [
            Key.enabled, Key.minimumLength, Key.digitsOnly, Key.requiresDigit, Key.requiresUppercase,
            Key.requiresLowercase, Key.requiresSpecial, Key.minimumUniqueCharacters, Key.retryLimit, Key.lockTimeout,
            Key.expiresInDays, Key.historySize, Key.biometricsEnabled, Key.allowsSkip, Key.blocksCommon,
        ]
        #expect(Set(properties.keys) == Set(keys))
    }

    @Test func aPolicyCrossesTheWireUnchanged() throws {
        let policy = PasscodePolicy(
            minimumLength: 6,
            digitsOnly: true,
            minimumUniqueCharacters: 4,
            retryLimit: 5,
            lockTimeout: .seconds(60),
            expiresAfterDays: 90,
            historyCount: 3,
            allowsBiometrics: false,
            allowsSkip: true,
            blocksCommonPasscodes: false
        )
        let wire = Wire(policy)
        #expect(wire.passwordPolicyEnabled == true)
        #expect(wire.passwordPolicyLockTimeout == 60)
        #expect(try PasscodePolicy(wire) == policy)
        #expect(try PasscodePolicy(Wire(.standard)) == .standard)
        #expect(Wire(.standard, enabled: false).isEnabled == false)
    }

    @Test func keysLeftOutTakeTheDefaultsAndZeroDaysNeverExpires() throws {
        #expect(try PasscodePolicy(Wire()) == .standard)
        #expect(try Wire().policy() == .standard)
        let custom = PasscodePolicy(minimumLength: 12, retryLimit: 3)
        let partial = Wire(passwordPolicyMinLength: 10, passwordPolicyExpiresInNDays: 0)
        let read = try PasscodePolicy(partial, defaults: custom)
        #expect(read.minimumLength == 10)
        #expect(read.retryLimit == 3)
        #expect(read.expiresAfterDays == nil)
    }

    @Test func aDisabledPolicyRequiresNoPasscode() throws {
        #expect(try Wire(passwordPolicyEnabled: false, passwordPolicyMinLength: 12).policy() == nil)
        #expect(try Wire(passwordPolicyEnabled: true).policy() == .standard)
    }

    @Test(
        "each out-of-range value is refused, naming its settings key",
        arguments: [
            (Wire(passwordPolicyMinLength: 0), Key.minimumLength),
            (Wire(passwordPolicyMinLength: 257), Key.minimumLength),
            (Wire(passwordPolicyMinUniqueChars: -1), Key.minimumUniqueCharacters),
            (Wire(passwordPolicyRetryLimit: 1001), Key.retryLimit),
            (Wire(passwordPolicyLockTimeout: -1), Key.lockTimeout),
            (Wire(passwordPolicyLockTimeout: 604_801), Key.lockTimeout),
            (Wire(passwordPolicyExpiresInNDays: 3651), Key.expiresInDays),
            (Wire(passwordPolicyHistorySize: 101), Key.historySize),
        ]
    )
    func outOfRange(wire: Wire, key: String) {
        do {
            _ = try PasscodePolicy(wire)
            Issue.record("accepted \(key)")
        } catch {
            #expect(error == .invalidValue)
            #expect(error.key == key)
        }
    }

    @Test func contradictoryRulesAreAConflictNotABadValue() {
        do {
            _ = try PasscodePolicy(Wire(passwordPolicyIsDigitsOnly: true, passwordPolicyUpperRequired: true))
            Issue.record("accepted a digits-only policy that needs a letter")
        } catch {
            #expect(error == .conflictingRules)
            #expect(error.key == Key.digitsOnly)
        }
        #expect(throws: PasscodePolicyError.conflictingRules) {
            try PasscodePolicy(Wire(passwordPolicyIsDigitsOnly: true, passwordPolicyMinUniqueChars: 11))
        }
        // Each rule alone is fine.
        #expect(throws: Never.self) { try PasscodePolicy(Wire(passwordPolicyMinUniqueChars: 11)) }
    }
}

@Suite("The passcode policy's field table: each setting declared once")
struct PasscodePolicyFieldTests {
    typealias Wire = Components.Schemas.PasswordPolicy

    @Test(
        "every field is a key of the document's PasswordPolicy, of its type and range, and every key but 'enabled' a field"
    )
    func theTableIsTheDocuments() throws {
        let properties = try #require(
            try ErrorCodeContractTests.schema("PasswordPolicy")["properties"] as? [String: Any]
        )
        #expect(
            Set(properties.keys)
                == Set(PasscodePolicy.fields.map(\.key) + [PasscodePolicy.SettingsKey.enabled])
        )
        for field in PasscodePolicy.fields {
            let schema = try #require(properties[field.key] as? [String: Any])
            let types = (schema["type"] as? [String]) ?? [(schema["type"] as? String) ?? ""]
            switch field.kind {
            case .number(let range):
                #expect(types.contains("integer"), "\(field.key)")
                #expect(schema["minimum"] as? Int == range.lowerBound && schema["maximum"] as? Int == range.upperBound)
            case .flag:
                #expect(types.contains("boolean"), "\(field.key)")
            }
        }
        #expect(Set(PasscodePolicy.fields.map(\.option)).count == PasscodePolicy.fields.count, "options are unique")
    }

    @Test("each field crosses the wire alone: set one, and only that one changes")
    func eachFieldCrossesTheWire() throws {
        for field in PasscodePolicy.fields {
            var policy = PasscodePolicy.standard
            switch (field.kind, field.value(in: policy)) {
            case (.number(let range), .number(let now)):
                field.set(.number(now == range.lowerBound ? range.lowerBound + 1 : range.lowerBound), in: &policy)
            case (.flag, .flag(let now)):
                field.set(.flag(!now), in: &policy)
            default:
                Issue.record("\(field.key) reads a value of another kind")
            }
            // Some single changes contradict the standard rules (digits only with a
            // letter required): those are refused by key, never lost.
            guard (try? policy.validated()) != nil else { continue }
            #expect(policy != .standard, "\(field.key) changed the policy")
            let wire = Wire(policy)
            #expect(wire.settings[field.key] == field.value(in: policy), "\(field.key) on the wire")
            #expect(try PasscodePolicy(wire) == policy, "\(field.key) back from the wire")
            let sent = Wire(settings: [field.key: field.value(in: policy)], enabled: nil)
            #expect(sent.settings == [field.key: field.value(in: policy)], "\(field.key) alone")
        }
    }

    @Test("merging lays the keys an update gives over the ones kept, and nothing else")
    func mergingKeepsWhatTheUpdateLeavesOut() throws {
        let kept = Wire(PasscodePolicy(minimumLength: 12, retryLimit: 3))
        let update = Wire(passwordPolicyEnabled: false, passwordPolicyMinLength: 14)
        let merged = kept.merging(update)
        #expect(merged.passwordPolicyMinLength == 14)
        #expect(merged.passwordPolicyRetryLimit == 3)
        #expect(merged.passwordPolicyEnabled == false)
        #expect(kept.merging(Wire()) == kept)
    }

    @Test("a value of the wrong kind names its key")
    func aWrongKindNamesItsKey() {
        #expect(throws: PasscodePolicyError.self) {
            try PasscodePolicy(settings: [PasscodePolicy.SettingsKey.retryLimit: .flag(true)])
        }
        do {
            _ = try PasscodePolicy(settings: [PasscodePolicy.SettingsKey.allowsSkip: .number(1)])
            Issue.record("a number for a flag was taken")
        } catch {
            #expect(error.key == PasscodePolicy.SettingsKey.allowsSkip)
        }
    }
}

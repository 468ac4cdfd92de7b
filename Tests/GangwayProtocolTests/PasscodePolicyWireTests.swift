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

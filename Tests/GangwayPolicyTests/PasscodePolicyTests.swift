import Foundation
import Testing

@testable import GangwayPolicy

@Suite("Passcode policy rules")
struct PasscodePolicyTests {
    @Test func checklistReportsEachRuleSeparately() {
        let policy = PasscodePolicy(
            minimumLength: 8,
            requiresDigit: true,
            requiresUppercase: true,
            requiresLowercase: true,
            requiresSpecial: true,
            minimumUniqueCharacters: 5
        )
        let evaluation = policy.evaluate("abcdefgh")
        let satisfied = Dictionary(uniqueKeysWithValues: evaluation.results.map { ($0.rule, $0.isSatisfied) })
        #expect(satisfied[.minimumLength(8)] == true)
        #expect(satisfied[.containsLowercase] == true)
        #expect(satisfied[.containsDigit] == false)
        #expect(satisfied[.containsUppercase] == false)
        #expect(satisfied[.containsSpecial] == false)
        #expect(satisfied[.minimumUniqueCharacters(5)] == true)
        #expect(satisfied[.notCommon] == false, "a straight run of letters is trivial")
        #expect(!evaluation.isAcceptable)
        #expect(policy.evaluate("Fuel-Check9").isAcceptable)
    }

    @Test func checklistUpdatesAsThePasscodeGrows() {
        let policy = PasscodePolicy(minimumLength: 6, digitsOnly: true)
        #expect(policy.evaluate("58").failedRules == [.minimumLength(6)])
        #expect(policy.evaluate("58a").failedRules == [.minimumLength(6), .digitsOnly])
        #expect(policy.evaluate("583917").isAcceptable)
    }

    @Test(arguments: ["1234", "0000", "123456", "654321", "111111", "121212", "password", "Qwerty", "789012", "abcabc"])
    func commonPasscodesAreRefused(passcode: String) {
        let policy = PasscodePolicy(minimumLength: 4)
        #expect(policy.evaluate(Secret(passcode)).failedRules.contains(.notCommon))
    }

    @Test(arguments: ["583917", "2906", "Fuel-Check9", "tyre pressure ok"])
    func ordinaryPasscodesAreNotCommon(passcode: String) {
        #expect(PasscodePolicy(minimumLength: 4).evaluate(Secret(passcode)).isAcceptable)
    }

    @Test func commonPasscodesAreAllowedWhenTheBlocklistIsOff() {
        let policy = PasscodePolicy(minimumLength: 4, blocksCommonPasscodes: false)
        #expect(policy.evaluate("1234").isAcceptable)
    }

    @Test func fullWidthDigitsCountAsDigitsAfterNormalisation() {
        let policy = PasscodePolicy(minimumLength: 6, digitsOnly: true)
        #expect(policy.evaluate("５８３９１７").isAcceptable)
    }

    @Test func contradictoryOrOutOfRangePoliciesAreRejected() {
        #expect(throws: PasscodePolicyError.invalidValue) {
            try PasscodePolicy(retryLimit: 0).validated()
        }
        #expect(throws: PasscodePolicyError.invalidValue) {
            try PasscodePolicy(minimumLength: 0).validated()
        }
        #expect(throws: PasscodePolicyError.conflictingRules) {
            try PasscodePolicy(digitsOnly: true, requiresUppercase: true).validated()
        }
        #expect(throws: PasscodePolicyError.invalidValue) {
            try PasscodePolicy(lockTimeout: .seconds(-1)).validated()
        }
        #expect((try? PasscodePolicy.standard.validated()) == .standard)
    }

    @Test func lockoutDelaysGrowAndStopAtTheMaximum() {
        let delays = LockoutDelays(freeAttempts: 2, initialDelay: .seconds(5), maximumDelay: .seconds(60))
        #expect(delays.delay(afterFailures: 2) == .zero)
        #expect(delays.delay(afterFailures: 3) == .seconds(5))
        #expect(delays.delay(afterFailures: 4) == .seconds(10))
        #expect(delays.delay(afterFailures: 5) == .seconds(20))
        #expect(delays.delay(afterFailures: 7) == .seconds(60))
        #expect(delays.delay(afterFailures: 50) == .seconds(60))
    }
}

@Suite("Passcode policy from server settings")
struct PasscodePolicySettingsTests {
    @Test func readsTheWholeSettingsDocument() throws {
        let json = """
            {"mobileservices": {"settingsExchange": {"passwordPolicy": {
              "passwordPolicyEnabled": true,
              "passwordPolicyMinLength": 6,
              "passwordPolicyDigitRequired": true,
              "passwordPolicyUpperRequired": false,
              "passwordPolicyLowerRequired": true,
              "passwordPolicySpecialRequired": false,
              "passwordPolicyMinUniqueChars": 3,
              "passwordPolicyRetryLimit": 7,
              "passwordPolicyLockTimeout": 120,
              "passwordPolicyExpiresInNDays": 90,
              "passwordPolicyFingerprintEnabled": false,
              "passwordPolicyHistorySize": 2,
              "somethingNewer": {"nested": [1, 2]}
            }}}}
            """
        let policy = try #require(try PasscodePolicy.fromSettings(Data(json.utf8)))
        #expect(policy.minimumLength == 6)
        #expect(policy.requiresDigit)
        #expect(!policy.requiresUppercase)
        #expect(policy.requiresLowercase)
        #expect(policy.minimumUniqueCharacters == 3)
        #expect(policy.retryLimit == 7)
        #expect(policy.lockTimeout == .seconds(120))
        #expect(policy.expiresAfterDays == 90)
        #expect(!policy.allowsBiometrics)
        #expect(policy.historyCount == 2)
    }

    @Test func acceptsNumbersAndBooleansSentAsStrings() throws {
        let json = """
            {"passwordPolicy": {"passwordPolicyMinLength": "8", "passwordPolicyRetryLimit": " 4 ",
             "passwordPolicyIsDigitsOnly": "true", "passwordPolicyFingerprintEnabled": "false",
             "passwordPolicyExpiresInNDays": "0"}}
            """
        let policy = try #require(try PasscodePolicy.fromSettings(Data(json.utf8)))
        #expect(policy.minimumLength == 8)
        #expect(policy.retryLimit == 4)
        #expect(policy.digitsOnly)
        #expect(!policy.allowsBiometrics)
        #expect(policy.expiresAfterDays == nil)
    }

    @Test func aDisabledOrMissingPolicyMeansNoPasscode() throws {
        #expect(
            try PasscodePolicy.fromSettings(Data(#"{"passwordPolicy": {"passwordPolicyEnabled": "false"}}"#.utf8))
                == nil
        )
        #expect(try PasscodePolicy.fromSettings(Data(#"{"mobileservices": {"settingsExchange": {}}}"#.utf8)) == nil)
        #expect(try PasscodePolicy.fromSettings(Data(#"{"passwordPolicy": null}"#.utf8)) == nil)
    }

    @Test func missingKeysKeepTheDefaults() throws {
        let defaults = PasscodePolicy(minimumLength: 10, retryLimit: 3)
        let policy = try #require(
            try PasscodePolicy.fromSettings(Data(#"{"passwordPolicyLockTimeout": 60}"#.utf8), defaults: defaults)
        )
        #expect(policy.minimumLength == 10)
        #expect(policy.retryLimit == 3)
        #expect(policy.lockTimeout == .seconds(60))
    }

    @Test(arguments: ["", "not json", "[1, 2]", "42", #"{"passwordPolicy": [1]}"#, #"{"mobileservices": "x"}"#])
    func malformedDocumentsAreRejected(json: String) {
        #expect(throws: PasscodePolicyError.malformedJSON) {
            try PasscodePolicy.fromSettings(Data(json.utf8))
        }
    }

    @Test func aValueOfTheWrongTypeNamesItsKey() {
        let json = #"{"passwordPolicy": {"passwordPolicyMinLength": "eight"}}"#
        do {
            _ = try PasscodePolicy.fromSettings(Data(json.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error == .wrongType)
            #expect(error.key == "passwordPolicyMinLength")
            #expect(error.description.contains("passwordPolicyMinLength"))
        }
        #expect(throws: PasscodePolicyError.wrongType) {
            try PasscodePolicy.fromSettings(Data(#"{"passwordPolicy": {"passwordPolicyDigitRequired": "maybe"}}"#.utf8))
        }
        #expect(throws: PasscodePolicyError.wrongType) {
            try PasscodePolicy.fromSettings(Data(#"{"passwordPolicy": {"passwordPolicyRetryLimit": [3]}}"#.utf8))
        }
    }

    @Test func anOutOfRangeValueNamesItsKey() {
        let json = #"{"passwordPolicy": {"passwordPolicyRetryLimit": 0}}"#
        do {
            _ = try PasscodePolicy.fromSettings(Data(json.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error == .invalidValue)
            #expect(error.key == "passwordPolicyRetryLimit")
        }
    }
}

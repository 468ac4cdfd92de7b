import Testing

@testable import GangwayPolicy

@Suite("An app's policy combined with the server's")
struct PasscodePolicyCombinationTests {
    static let app = PasscodePolicy(
        minimumLength: 10,
        requiresDigit: true,
        retryLimit: 8,
        lockTimeout: .seconds(120),
        expiresAfterDays: 90,
        allowsBiometrics: true,
        allowsSkip: false
    )

    @Test func eachRuleComesFromTheStricterPolicy() throws {
        let server = PasscodePolicy(
            minimumLength: 6,
            digitsOnly: true,
            minimumUniqueCharacters: 4,
            retryLimit: 20,
            lockTimeout: .seconds(60),
            expiresAfterDays: nil,
            historyCount: 3,
            allowsBiometrics: false,
            allowsSkip: true,
            blocksCommonPasscodes: false,
            lockoutDelays: LockoutDelays(freeAttempts: 2)
        )
        let combined = try server.combined(with: Self.app).validated()
        #expect(combined.minimumLength == 10)
        #expect(!combined.digitsOnly, "a PIN is weaker than a passcode of the same length with letters")
        #expect(combined.requiresDigit)
        #expect(combined.minimumUniqueCharacters == 4)
        #expect(combined.retryLimit == 8)
        #expect(combined.lockTimeout == .seconds(60))
        #expect(combined.expiresAfterDays == 90)
        #expect(combined.historyCount == 3)
        #expect(!combined.allowsBiometrics)
        #expect(!combined.allowsSkip)
        #expect(combined.blocksCommonPasscodes)
        #expect(combined.lockoutDelays == LockoutDelays(freeAttempts: 2))
    }

    @Test func combiningIsSymmetricInItsRules() {
        let server = PasscodePolicy(minimumLength: 12, requiresSpecial: true, retryLimit: 3, expiresAfterDays: 30)
        let one = server.combined(with: Self.app)
        let other = Self.app.combined(with: server)
        #expect(one == other)
        #expect(one.minimumLength == 12 && one.requiresSpecial && one.requiresDigit)
        #expect(one.retryLimit == 3 && one.expiresAfterDays == 30)
    }

    @Test func twoPINPoliciesStayAPIN() throws {
        let pin = PasscodePolicy(minimumLength: 6, digitsOnly: true, minimumUniqueCharacters: 3)
        let longer = PasscodePolicy(minimumLength: 8, digitsOnly: true, minimumUniqueCharacters: 10)
        let combined = try pin.combined(with: longer).validated()
        #expect(combined.digitsOnly && combined.minimumLength == 8 && combined.minimumUniqueCharacters == 10)
    }
}

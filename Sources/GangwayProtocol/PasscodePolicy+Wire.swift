import GangwayPolicy

extension PasscodePolicy {
    /// The policy the settings exchange's `passwordPolicy` describes, keys it leaves out
    /// taking the values of `defaults`, checked with ``GangwayPolicy/PasscodePolicy/validated()``.
    ///
    /// `passwordPolicyEnabled` is not read here: whether a passcode is required at all is
    /// ``Components/Schemas/PasswordPolicy/isEnabled``. The one mapping from the wire to
    /// the policy, used by the server to validate an admin's change, by the device to read
    /// its settings and by the admin client to show them.
    /// - Throws: ``GangwayPolicy/PasscodePolicyError`` naming the settings key at fault.
    public init(
        _ wire: Components.Schemas.PasswordPolicy,
        defaults: PasscodePolicy = .standard
    ) throws(PasscodePolicyError) {
        var policy = defaults
        if let value = wire.passwordPolicyMinLength { policy.minimumLength = value }
        if let value = wire.passwordPolicyIsDigitsOnly { policy.digitsOnly = value }
        if let value = wire.passwordPolicyDigitRequired { policy.requiresDigit = value }
        if let value = wire.passwordPolicyUpperRequired { policy.requiresUppercase = value }
        if let value = wire.passwordPolicyLowerRequired { policy.requiresLowercase = value }
        if let value = wire.passwordPolicySpecialRequired { policy.requiresSpecial = value }
        if let value = wire.passwordPolicyMinUniqueChars { policy.minimumUniqueCharacters = value }
        if let value = wire.passwordPolicyRetryLimit { policy.retryLimit = value }
        if let value = wire.passwordPolicyLockTimeout { policy.lockTimeout = .seconds(value) }
        if let value = wire.passwordPolicyExpiresInNDays { policy.expiresAfterDays = value == 0 ? nil : value }
        if let value = wire.passwordPolicyHistorySize { policy.historyCount = value }
        if let value = wire.passwordPolicyFingerprintEnabled { policy.allowsBiometrics = value }
        if let value = wire.passwordPolicyAllowsSkip { policy.allowsSkip = value }
        if let value = wire.passwordPolicyBlocksCommon { policy.blocksCommonPasscodes = value }
        self = try policy.validated()
    }
}

extension Components.Schemas.PasswordPolicy {
    /// The settings exchange's form of `policy`, every key given. A lock timeout is sent
    /// in whole seconds; the lockout delays are the device's own and are not sent.
    public init(_ policy: PasscodePolicy, enabled: Bool = true) {
        self.init(
            passwordPolicyEnabled: enabled,
            passwordPolicyMinLength: policy.minimumLength,
            passwordPolicyIsDigitsOnly: policy.digitsOnly,
            passwordPolicyDigitRequired: policy.requiresDigit,
            passwordPolicyUpperRequired: policy.requiresUppercase,
            passwordPolicyLowerRequired: policy.requiresLowercase,
            passwordPolicySpecialRequired: policy.requiresSpecial,
            passwordPolicyMinUniqueChars: policy.minimumUniqueCharacters,
            passwordPolicyRetryLimit: policy.retryLimit,
            passwordPolicyLockTimeout: Int(policy.lockTimeout.components.seconds),
            passwordPolicyExpiresInNDays: policy.expiresAfterDays ?? 0,
            passwordPolicyHistorySize: policy.historyCount,
            passwordPolicyFingerprintEnabled: policy.allowsBiometrics,
            passwordPolicyAllowsSkip: policy.allowsSkip,
            passwordPolicyBlocksCommon: policy.blocksCommonPasscodes
        )
    }

    /// Whether the app requires a passcode: a policy that leaves the key out does.
    public var isEnabled: Bool { passwordPolicyEnabled ?? true }

    /// The policy these values describe, or `nil` when they turn the passcode off.
    /// - Throws: ``GangwayPolicy/PasscodePolicyError`` naming the settings key at fault.
    public func policy(defaults: PasscodePolicy = .standard) throws(PasscodePolicyError) -> PasscodePolicy? {
        isEnabled ? try PasscodePolicy(self, defaults: defaults) : nil
    }
}

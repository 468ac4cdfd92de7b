extension PasscodePolicy {
    /// The keys of the server's settings-exchange document that a policy is read from.
    ///
    /// The `passwordPolicy…` names are those of the reference system's settings exchange;
    /// `passwordPolicyHistorySize`, `passwordPolicyAllowsSkip`,
    /// `passwordPolicyBlocksCommon` and `passwordPolicyIsDigitsOnly` are Gangway's
    /// additions in the same style.
    public enum SettingsKey {
        public static let enabled = "passwordPolicyEnabled"
        public static let minimumLength = "passwordPolicyMinLength"
        public static let digitsOnly = "passwordPolicyIsDigitsOnly"
        public static let requiresDigit = "passwordPolicyDigitRequired"
        public static let requiresUppercase = "passwordPolicyUpperRequired"
        public static let requiresLowercase = "passwordPolicyLowerRequired"
        public static let requiresSpecial = "passwordPolicySpecialRequired"
        public static let minimumUniqueCharacters = "passwordPolicyMinUniqueChars"
        public static let retryLimit = "passwordPolicyRetryLimit"
        public static let lockTimeout = "passwordPolicyLockTimeout"
        public static let expiresInDays = "passwordPolicyExpiresInNDays"
        public static let historySize = "passwordPolicyHistorySize"
        public static let biometricsEnabled = "passwordPolicyFingerprintEnabled"
        public static let allowsSkip = "passwordPolicyAllowsSkip"
        public static let blocksCommon = "passwordPolicyBlocksCommon"
    }
}

/// The rules a passcode must meet and the limits that protect it.
///
/// A policy usually arrives from the mobile-services server (GangwayProtocol maps the
/// settings exchange's `passwordPolicy` to it); an app can also set a default one. The
/// store records the policy it was created with, protected against tampering, because the
/// retry limit and delays must be known before the store is unlocked.
///
/// The defaults (``standard``) and the ranges (``Limits``) are declared here once: the
/// server starts new apps with them, validates an admin's changes with ``validated()``,
/// and the device checks what it receives with the same function.
public struct PasscodePolicy: Sendable, Hashable, Codable {
    /// The fewest characters a passcode may have.
    public var minimumLength: Int
    /// Whether the passcode may contain only the digits 0 to 9 (a PIN).
    public var digitsOnly: Bool
    /// Whether at least one digit is required.
    public var requiresDigit: Bool
    /// Whether at least one uppercase letter is required.
    public var requiresUppercase: Bool
    /// Whether at least one lowercase letter is required.
    public var requiresLowercase: Bool
    /// Whether at least one character that is neither a letter nor a digit is required.
    public var requiresSpecial: Bool
    /// The fewest different characters a passcode may have.
    public var minimumUniqueCharacters: Int
    /// How many wrong passcodes in a row erase the store.
    public var retryLimit: Int
    /// How long the app may stay in the background before the passcode is asked again.
    public var lockTimeout: Duration
    /// After how many days a passcode must be changed; `nil` for never.
    public var expiresAfterDays: Int?
    /// How many previous passcodes may not be reused; 0 allows reuse.
    public var historyCount: Int
    /// Whether the user may unlock with a biometric.
    public var allowsBiometrics: Bool
    /// Whether the user may skip setting a passcode.
    public var allowsSkip: Bool
    /// Whether the most common passcodes and trivial sequences are refused.
    public var blocksCommonPasscodes: Bool
    /// Growing waits between wrong passcodes, or `nil` for none.
    public var lockoutDelays: LockoutDelays?

    /// Creates a policy. The defaults are a reasonable standalone policy: eight
    /// characters, ten tries, a five-minute lock timeout, common passcodes refused.
    public init(
        minimumLength: Int = 8,
        digitsOnly: Bool = false,
        requiresDigit: Bool = false,
        requiresUppercase: Bool = false,
        requiresLowercase: Bool = false,
        requiresSpecial: Bool = false,
        minimumUniqueCharacters: Int = 0,
        retryLimit: Int = 10,
        lockTimeout: Duration = .seconds(300),
        expiresAfterDays: Int? = nil,
        historyCount: Int = 0,
        allowsBiometrics: Bool = true,
        allowsSkip: Bool = false,
        blocksCommonPasscodes: Bool = true,
        lockoutDelays: LockoutDelays? = nil
    ) {
        self.minimumLength = minimumLength
        self.digitsOnly = digitsOnly
        self.requiresDigit = requiresDigit
        self.requiresUppercase = requiresUppercase
        self.requiresLowercase = requiresLowercase
        self.requiresSpecial = requiresSpecial
        self.minimumUniqueCharacters = minimumUniqueCharacters
        self.retryLimit = retryLimit
        self.lockTimeout = lockTimeout
        self.expiresAfterDays = expiresAfterDays
        self.historyCount = historyCount
        self.allowsBiometrics = allowsBiometrics
        self.allowsSkip = allowsSkip
        self.blocksCommonPasscodes = blocksCommonPasscodes
        self.lockoutDelays = lockoutDelays
    }

    /// The policy used when neither the app nor the server sets one, and the one a new
    /// app starts with on the server.
    public static let standard = PasscodePolicy()

    /// The values a policy may take. The API document states the same ranges for the
    /// settings exchange; a test holds the two together.
    public enum Limits {
        /// ``PasscodePolicy/minimumLength``.
        public static let minimumLength = 1...256
        /// ``PasscodePolicy/minimumUniqueCharacters``.
        public static let minimumUniqueCharacters = 0...256
        /// ``PasscodePolicy/retryLimit``.
        public static let retryLimit = 1...1000
        /// ``PasscodePolicy/lockTimeout``, in whole seconds: up to a week.
        public static let lockTimeoutSeconds = 0...604_800
        /// ``PasscodePolicy/expiresAfterDays``; on the wire 0 means never.
        public static let expiresAfterDays = 0...3650
        /// ``PasscodePolicy/historyCount``.
        public static let historyCount = 0...100
        /// The most different characters a digits-only passcode can have.
        public static let digitsOnlyUniqueCharacters = 10
    }

    /// Checks that the policy itself makes sense: every value within ``Limits``, and no
    /// rule that contradicts another.
    ///
    /// The error names the setting at fault by its settings-exchange key
    /// (``SettingsKey``), the name an administrator sets it by.
    public func validated() throws(PasscodePolicyError) -> PasscodePolicy {
        try Self.check(minimumLength, SettingsKey.minimumLength, Limits.minimumLength)
        try Self.check(minimumUniqueCharacters, SettingsKey.minimumUniqueCharacters, Limits.minimumUniqueCharacters)
        try Self.check(retryLimit, SettingsKey.retryLimit, Limits.retryLimit)
        guard lockTimeout >= .zero, lockTimeout <= .seconds(Limits.lockTimeoutSeconds.upperBound) else {
            throw .outOfRange(SettingsKey.lockTimeout, Limits.lockTimeoutSeconds)
        }
        if let expiresAfterDays {
            try Self.check(expiresAfterDays, SettingsKey.expiresInDays, Limits.expiresAfterDays)
        }
        try Self.check(historyCount, SettingsKey.historySize, Limits.historyCount)
        if digitsOnly, requiresUppercase || requiresLowercase || requiresSpecial {
            throw .conflictingRules(
                key: SettingsKey.digitsOnly,
                reason: "a digits-only passcode cannot require letters or special characters"
            )
        }
        if digitsOnly, minimumUniqueCharacters > Limits.digitsOnlyUniqueCharacters {
            throw .conflictingRules(
                key: SettingsKey.minimumUniqueCharacters,
                reason: "a digits-only passcode has at most \(Limits.digitsOnlyUniqueCharacters) different characters"
            )
        }
        return self
    }

    private static func check(_ value: Int, _ key: String, _ range: ClosedRange<Int>) throws(PasscodePolicyError) {
        guard range.contains(value) else { throw .outOfRange(key, range) }
    }
}

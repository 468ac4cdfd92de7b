/// The rules a passcode must meet and the limits that protect it.
///
/// A policy usually arrives from the mobile-services server
/// (``PasscodePolicy/init(settingsJSON:)``); an app can also set a default one. The store
/// records the policy it was created with, protected against tampering, because the retry
/// limit and delays must be known before the store is unlocked.
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

    /// The policy used when neither the app nor the server sets one.
    public static let standard = PasscodePolicy()

    /// Checks that the policy itself makes sense (a positive retry limit, a length a
    /// passcode can have, no rule that contradicts another).
    public func validated() throws(PasscodePolicyError) -> PasscodePolicy {
        func fail(_ key: String, _ reason: String) -> PasscodePolicyError {
            .invalidValue(key: key, reason: reason)
        }
        guard (1...256).contains(minimumLength) else {
            throw fail("minimumLength", "must be between 1 and 256")
        }
        guard (1...1000).contains(retryLimit) else {
            throw fail("retryLimit", "must be between 1 and 1000")
        }
        guard (0...256).contains(minimumUniqueCharacters) else {
            throw fail("minimumUniqueCharacters", "must be between 0 and 256")
        }
        guard lockTimeout >= .zero else { throw fail("lockTimeout", "must not be negative") }
        if let expiresAfterDays, expiresAfterDays < 0 {
            throw fail("expiresAfterDays", "must not be negative")
        }
        guard (0...100).contains(historyCount) else {
            throw fail("historyCount", "must be between 0 and 100")
        }
        if digitsOnly, requiresUppercase || requiresLowercase || requiresSpecial {
            throw fail("digitsOnly", "a digits-only passcode cannot require letters or special characters")
        }
        if digitsOnly, minimumUniqueCharacters > 10 {
            throw fail("minimumUniqueCharacters", "a digits-only passcode has at most 10 different characters")
        }
        return self
    }
}

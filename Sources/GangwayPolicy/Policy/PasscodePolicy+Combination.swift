extension PasscodePolicy {
    /// The policy that meets both `self` and `other`: each rule from whichever of the two
    /// is stricter.
    ///
    /// This is how an app's own default policy is a floor under the server's: the server
    /// can make the rules stricter, never weaker, and cannot turn the passcode off.
    ///
    /// - Lengths, unique characters and history: the larger. Retry limit, lock timeout
    ///   and expiry: the smaller (no expiry counts as the longest).
    /// - Required character classes and refusing common passcodes: required when either
    ///   requires them. Digits only: only when both are, since letters make a passcode of
    ///   the same length stronger.
    /// - Biometrics and skipping: allowed only when both allow them.
    /// - Lockout delays: `self`'s, or `other`'s when `self` has none.
    public func combined(with other: PasscodePolicy) -> PasscodePolicy {
        var result = self
        result.minimumLength = max(minimumLength, other.minimumLength)
        result.digitsOnly = digitsOnly && other.digitsOnly
        result.requiresDigit = requiresDigit || other.requiresDigit
        result.requiresUppercase = requiresUppercase || other.requiresUppercase
        result.requiresLowercase = requiresLowercase || other.requiresLowercase
        result.requiresSpecial = requiresSpecial || other.requiresSpecial
        result.minimumUniqueCharacters = max(minimumUniqueCharacters, other.minimumUniqueCharacters)
        result.retryLimit = min(retryLimit, other.retryLimit)
        result.lockTimeout = min(lockTimeout, other.lockTimeout)
        switch (expiresAfterDays, other.expiresAfterDays) {
        case (let mine?, let theirs?): result.expiresAfterDays = min(mine, theirs)
        case (nil, let theirs): result.expiresAfterDays = theirs
        case (let mine, nil): result.expiresAfterDays = mine
        }
        result.historyCount = max(historyCount, other.historyCount)
        result.allowsBiometrics = allowsBiometrics && other.allowsBiometrics
        result.allowsSkip = allowsSkip && other.allowsSkip
        result.blocksCommonPasscodes = blocksCommonPasscodes || other.blocksCommonPasscodes
        result.lockoutDelays = lockoutDelays ?? other.lockoutDelays
        return result
    }
}

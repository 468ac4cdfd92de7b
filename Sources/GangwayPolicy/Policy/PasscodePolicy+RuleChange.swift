/// Which way a new policy moves the rules a passcode must meet, as a person is told when
/// the policy makes them choose a new passcode.
public enum PasscodeRuleChange: Sendable, Hashable, Codable {
    /// The same rules: a passcode that met the old ones meets the new ones.
    case unchanged
    /// Every rule as strict or stricter (a longer minimum, a class now required).
    case stricter
    /// Every rule as strict or looser: simpler passcodes are now allowed.
    case looser
    /// Some rules stricter and some looser.
    case mixed
}

extension PasscodePolicy {
    /// Whether a passcode that meets one policy's rules meets the other's: the limits
    /// (tries, lock timeout, expiry, delays) and the biometric and skip settings do not
    /// count.
    public func hasSameRules(as other: PasscodePolicy) -> Bool {
        minimumLength == other.minimumLength && digitsOnly == other.digitsOnly
            && requiresDigit == other.requiresDigit && requiresUppercase == other.requiresUppercase
            && requiresLowercase == other.requiresLowercase && requiresSpecial == other.requiresSpecial
            && minimumUniqueCharacters == other.minimumUniqueCharacters && historyCount == other.historyCount
            && blocksCommonPasscodes == other.blocksCommonPasscodes
    }

    /// Which way `new`'s rules move from these, by the same rule-by-rule order as
    /// ``combined(with:)``: `new` is stricter when combining the two gives `new`'s
    /// rules, looser when it gives these.
    public func ruleChange(to new: PasscodePolicy) -> PasscodeRuleChange {
        if hasSameRules(as: new) { return .unchanged }
        let strictest = combined(with: new)
        if strictest.hasSameRules(as: new) { return .stricter }
        if strictest.hasSameRules(as: self) { return .looser }
        return .mixed
    }
}

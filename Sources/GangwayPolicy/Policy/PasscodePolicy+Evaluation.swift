extension PasscodePolicy {
    /// The rules of this policy in checklist order.
    public var rules: [PasscodeRule] {
        var rules: [PasscodeRule] = [.minimumLength(minimumLength)]
        if digitsOnly { rules.append(.digitsOnly) }
        if requiresDigit, !digitsOnly { rules.append(.containsDigit) }
        if requiresUppercase { rules.append(.containsUppercase) }
        if requiresLowercase { rules.append(.containsLowercase) }
        if requiresSpecial { rules.append(.containsSpecial) }
        if minimumUniqueCharacters > 1 { rules.append(.minimumUniqueCharacters(minimumUniqueCharacters)) }
        if blocksCommonPasscodes { rules.append(.notCommon) }
        return rules
    }

    /// Checks a candidate passcode against every rule, for a live checklist.
    ///
    /// The passcode is NFKC-normalised first, as it is when it protects a store, so a
    /// full-width "１２３４" counts as the digits it looks like. The reuse rule needs the
    /// store's history, so the store checks it when a passcode is set.
    public func evaluate(_ passcode: Secret) -> PasscodeEvaluation {
        let normalized = passcode.normalized
        let characters = Array(normalized)
        let results = rules.map { rule in
            PasscodeRuleResult(rule: rule, isSatisfied: Self.check(rule, characters))
        }
        return PasscodeEvaluation(results: results)
    }

    private static func check(_ rule: PasscodeRule, _ characters: [Character]) -> Bool {
        switch rule {
        case .minimumLength(let count):
            return characters.count >= count
        case .digitsOnly:
            return !characters.isEmpty && characters.allSatisfy(\.isASCIIDigit)
        case .containsDigit:
            return characters.contains(where: \.isNumber)
        case .containsUppercase:
            return characters.contains(where: \.isUppercase)
        case .containsLowercase:
            return characters.contains(where: \.isLowercase)
        case .containsSpecial:
            return characters.contains { !$0.isLetter && !$0.isNumber }
        case .minimumUniqueCharacters(let count):
            return Set(characters).count >= count
        case .notCommon:
            return !CommonPasscodes.isCommon(String(characters))
        case .notRecentlyUsed:
            return true
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isWholeNumber }
}

import GangwayPolicy

extension PasscodeRule {
    /// The rule as a checklist shows it, from the string table (`rule.*`) in the person's
    /// language; ``PasscodeRule/summary`` is the English one the logs and errors use.
    public var text: String {
        switch self {
        case .minimumLength(let count): StringTable.text("rule.minimumLength", count)
        case .digitsOnly: StringTable.text("rule.digitsOnly")
        case .containsDigit: StringTable.text("rule.containsDigit")
        case .containsUppercase: StringTable.text("rule.containsUppercase")
        case .containsLowercase: StringTable.text("rule.containsLowercase")
        case .containsSpecial: StringTable.text("rule.containsSpecial")
        case .minimumUniqueCharacters(let count): StringTable.text("rule.minimumUniqueCharacters", count)
        case .notCommon: StringTable.text("rule.notCommon")
        case .notRecentlyUsed(1): StringTable.text("rule.notThePrevious")
        case .notRecentlyUsed(let count): StringTable.text("rule.notRecentlyUsed", count)
        }
    }
}

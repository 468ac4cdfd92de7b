import GangwayFlows
import GangwayPolicy
import GangwayScreens
import GangwayStore

/// A passcode policy as one line of text, the same on the device's home screen and in
/// `gangway admin`.
public enum PolicyText {
    /// The rules and limits: "at least 8 characters, …; 10 tries; locks after 300 s away",
    /// and the expiry when there is one.
    public static func describe(_ policy: PasscodePolicy) -> String {
        let rules = policy.rules.map(\.text).joined(separator: ", ")
        var text = localized("policy.limits", rules, policy.retryLimit, policy.lockTimeout.components.seconds)
        if let days = policy.expiresAfterDays { text += "; " + localized("policy.expiresAfter", days) }
        return text
    }

    /// What a server asks, with the settings a device does not see on its home screen.
    public static func describe(_ requirement: PasscodeRequirement?) -> String {
        guard let policy = requirement?.policy else { return localized("policy.notRequired") }
        var parts = [describe(policy)]
        if policy.expiresAfterDays == nil { parts.append(localized("policy.expiresNever")) }
        if policy.historyCount > 0 { parts.append(localized("policy.history", policy.historyCount)) }
        parts.append(localized(policy.allowsBiometrics ? "policy.biometricsAllowed" : "policy.biometricsNotAllowed"))
        if policy.allowsSkip { parts.append(localized("policy.skippable")) }
        return parts.joined(separator: "; ")
    }
}

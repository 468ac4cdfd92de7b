import GangwayFlows
import GangwayPolicy
import GangwayStore

/// A passcode policy as one line of text, the same on the device's home screen and in
/// `gangway admin`.
public enum PolicyText {
    /// The rules and limits: "at least 8 characters, …; 10 tries; locks after 300 s away",
    /// and the expiry when there is one.
    public static func describe(_ policy: PasscodePolicy) -> String {
        let rules = policy.rules.map(\.summary).joined(separator: ", ")
        var text = "\(rules); \(policy.retryLimit) tries; locks after \(policy.lockTimeout.components.seconds) s away"
        if let days = policy.expiresAfterDays { text += "; expires after \(days) days" }
        return text
    }

    /// What a server asks, with the settings a device does not see on its home screen.
    public static func describe(_ requirement: PasscodeRequirement?) -> String {
        guard let policy = requirement?.policy else { return "not required" }
        var parts = [describe(policy)]
        if policy.expiresAfterDays == nil { parts.append("expires never") }
        if policy.historyCount > 0 { parts.append("the last \(policy.historyCount) may not be reused") }
        parts.append("biometrics " + (policy.allowsBiometrics ? "allowed" : "not allowed"))
        if policy.allowsSkip { parts.append("may be skipped") }
        return parts.joined(separator: "; ")
    }
}

import Foundation
import GangwayPolicy
import GangwayStore

/// The text `gangway store info` prints: one `label: value` line per fact.
enum StoreInfoFormatter {
    static func format(_ info: SecureStoreInfo) -> String {
        var lines: [(String, String)] = [
            ("store", info.storeID.uuidString.lowercased()),
            ("format version", "\(info.formatVersion)"),
            ("protection", info.isPasscodeProtected ? "passcode" : "no passcode (device key)"),
        ]
        if let algorithm = info.keyDerivationAlgorithm, let rounds = info.keyDerivationRounds {
            lines.append(("key derivation", "\(algorithm), \(rounds) rounds"))
        }
        lines.append(("biometric unlock", info.isBiometricUnlockEnabled ? "on" : "off"))
        lines.append(("entries", "\(info.entryCount)"))
        if info.isPasscodeProtected {
            lines.append(("failed attempts", "\(info.failedAttempts)"))
            if let triesLeft = info.triesLeft { lines.append(("tries left", "\(triesLeft)")) }
        }
        if let policy = info.policy {
            lines.append(("policy", describe(policy)))
        }
        lines.append(("created", ISO8601DateFormatter().string(from: info.createdAt)))
        switch info.integrity {
        case .verified: lines.append(("integrity", "verified"))
        case .unverified(let reason): lines.append(("integrity", "not verified: \(reason)"))
        case .failed(let reason): lines.append(("integrity", "FAILED: \(reason)"))
        }
        return lines.map { "\($0.0): \($0.1)" }.joined(separator: "\n")
    }

    static func describe(_ policy: PasscodePolicy) -> String {
        var parts = policy.rules.map(\.summary)
        parts.append("retry limit \(policy.retryLimit)")
        parts.append("lock after \(policy.lockTimeout.components.seconds) s")
        if let days = policy.expiresAfterDays { parts.append("expires after \(days) days") }
        if policy.historyCount > 0 { parts.append("no reuse of the last \(policy.historyCount)") }
        parts.append(policy.allowsBiometrics ? "biometrics allowed" : "no biometrics")
        return parts.joined(separator: ", ")
    }
}

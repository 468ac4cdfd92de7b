import Foundation
import GangwayPolicy
import GangwayProtocol
import Synchronization

/// What an admin operation changed, in words for the audit: `status: active → locked`,
/// `blocked: false → true; password set`. The handler that made the change says it here,
/// once, so the admin API and the console (which runs the same handlers) record the same
/// words; ``APIServices/audit(actor:via:action:target:)`` reads it.
///
/// One note lives with each request that may change something (see ``RequestInfo``).
/// It never holds a secret: a new password or credential is said to be set, never shown.
final class AuditNote: Sendable {
    private let parts = Mutex<[String]>([])
    private let created = Mutex<String?>(nil)
    private let compared = Atomic<Bool>(false)

    /// The detail of an operation that changed nothing it compared.
    static let unchanged = "nothing changed"

    /// The note of the request being served, if its method may change something.
    static var current: AuditNote? { RequestInfo.current.auditNote }

    /// What the operation was done to, when that is not its request's path: the path of
    /// what it created (`/admin/apps/field-service`, where the request went to `/admin/apps`).
    var target: String? {
        get { created.withLock { $0 } }
        set { created.withLock { $0 = newValue } }
    }

    /// Adds `part` to what the operation changed.
    func add(_ part: String) {
        parts.withLock { $0.append(part) }
    }

    /// Adds `name: old → new` when the two differ.
    func change(_ name: String, from old: some CustomStringConvertible, to new: some CustomStringConvertible) {
        compared.store(true, ordering: .relaxed)
        let (old, new) = (old.description, new.description)
        if old != new { add("\(name): \(old) → \(new)") }
    }

    /// Adds each value that differs between `old` and `new`, by its JSON path
    /// (`passwordPolicy.minLength: 6 → 8`).
    func changes(from old: some Encodable, to new: some Encodable) {
        compared.store(true, ordering: .relaxed)
        let (before, after) = (JSONValue.paths(of: old), JSONValue.paths(of: new))
        for path in Set(before.keys).union(after.keys).sorted() where before[path] != after[path] {
            add("\(path): \(before[path] ?? "none") → \(after[path] ?? "none")")
        }
    }

    /// What was noted, in the order noted: ``unchanged`` when the operation compared old
    /// and new values and found none that differ (a save of what was there), `nil` when
    /// it noted nothing.
    var detail: String? {
        let text = parts.withLock { $0.joined(separator: "; ") }
        guard !text.isEmpty else { return compared.load(ordering: .relaxed) ? Self.unchanged : nil }
        // The document counts characters as JSON Schema does: by Unicode scalar.
        let longest = APILimits.auditDetail.upperBound
        guard text.unicodeScalars.count > longest else { return text }
        return Self.fitting(parts.withLock { $0 }, into: longest)
    }

    /// The start of each change that concerns how people and devices are kept safe: the
    /// passcode policy, shared devices, blocking and wiping, passcode reset, the oldest
    /// version allowed.
    static let securityPaths = [
        "settings.passwordPolicy.", "settings.sharedDeviceSettings.", "settings.blockWipingPolicy.",
        "settings.recoverySettings.", "minimumVersion:",
    ]

    /// `parts` joined within `limit` Unicode scalars: a security setting's change is never
    /// cut (a long list of e-mail domains must not hide a weaker passcode policy), and the
    /// others are cut from the longest down, so that every short one stays whole.
    static func fitting(_ parts: [String], into limit: Int) -> String {
        func length(_ part: String) -> Int { part.unicodeScalars.count }
        func cut(_ part: String, to count: Int) -> String {
            guard length(part) > count else { return part }
            return String(String.UnicodeScalarView(part.unicodeScalars.prefix(max(count - 1, 0)))) + "…"
        }
        let isSecurity = parts.map { part in securityPaths.contains { part.hasPrefix($0) } }
        let separators = 2 * max(parts.count - 1, 0)
        let kept = zip(parts, isSecurity).filter(\.1).map { length($0.0) }.reduce(0, +)
        let others = zip(parts, isSecurity).filter { !$0.1 }.map { length($0.0) }.sorted()
        var budget = limit - separators - kept
        // The widest each other part may be: the largest that fits them all.
        var cap = 0
        if budget >= 2 * others.count {
            cap = others.last ?? 0
            var remaining = others.count
            for part in others {
                if part * remaining > budget {
                    cap = budget / remaining
                    break
                }
                budget -= part
                remaining -= 1
            }
        } else {
            // Even the security changes alone do not fit: the whole is cut at the end.
            let text = parts.joined(separator: "; ")
            return cut(text, to: limit)
        }
        return zip(parts, isSecurity).map { $0.1 ? $0.0 : cut($0.0, to: cap) }.joined(separator: "; ")
    }
}

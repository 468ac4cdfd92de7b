import Foundation
import GangwayPolicy
import GangwayProtocol
import Synchronization

/// What an admin operation changed, in words for the audit: `status: active → locked`,
/// `blocked: false → true; password set`. The handler that made the change says it here,
/// once, so the admin API and the console (which runs the same handlers) record the same
/// words; ``MobileServicesAPI/audit(actor:via:action:target:)`` reads it.
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
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(longest - 1))) + "…"
    }
}

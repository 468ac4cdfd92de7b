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
        let (old, new) = (old.description, new.description)
        if old != new { add("\(name): \(old) → \(new)") }
    }

    /// Adds each value that differs between `old` and `new`, by its JSON path
    /// (`passwordPolicy.minLength: 6 → 8`).
    func changes(from old: some Encodable, to new: some Encodable) {
        let (before, after) = (Self.flattened(old), Self.flattened(new))
        for path in Set(before.keys).union(after.keys).sorted() where before[path] != after[path] {
            add("\(path): \(before[path] ?? "none") → \(after[path] ?? "none")")
        }
    }

    /// What was noted, in the order noted; `nil` when nothing changed.
    var detail: String? {
        let text = parts.withLock { $0.joined(separator: "; ") }
        guard !text.isEmpty else { return nil }
        // The document counts characters as JSON Schema does: by Unicode scalar.
        let longest = APILimits.auditDetail.upperBound
        guard text.unicodeScalars.count > longest else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(longest - 1))) + "…"
    }

    /// The scalars of `value`'s JSON by their dotted paths; an array is one value
    /// (`[a.example, b.example]`).
    private static func flattened(_ value: some Encodable) -> [String: String] {
        guard let data = try? JSONEncoder().encode(value),
            let root = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return [:] }
        var result: [String: String] = [:]
        func walk(_ node: JSONValue, _ path: String) {
            if case .object(let object) = node {
                for (key, child) in object { walk(child, path.isEmpty ? key : "\(path).\(key)") }
            } else {
                result[path] = text(node)
            }
        }
        walk(root, "")
        return result
    }

    private static func text(_ node: JSONValue) -> String {
        switch node {
        case .null: "none"
        case .bool(let value): String(value)
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .string(let value): value
        case .array(let values): "[" + values.map(text).joined(separator: ", ") + "]"
        case .object(let object):
            "{" + object.sorted { $0.key < $1.key }.map { "\($0.key): \(text($0.value))" }.joined(separator: ", ") + "}"
        }
    }
}

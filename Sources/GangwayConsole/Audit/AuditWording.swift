import Foundation

/// The audit in an operator's words, for the console's page: what was done as a phrase,
/// what it was done to by what the console calls it, and a change by the label its
/// setting has on the app's page. The downloads keep the API's own names (an operation,
/// a path, a JSON path), for scripts.
package enum AuditWording {
    /// Each action the audit records, as the console says it.
    package static let actions: [String: String] = [
        "createApp": "Added an app",
        "updateApp": "Changed an app",
        "createActivation": "Made an activation link",
        "setAppAuthentication": "Changed how people sign in",
        "updateDevice": "Changed a device's status",
        "createUser": "Added a user",
        "updateUser": "Changed a user",
        "revokeUserSessions": "Ended a user's sessions",
        "linkIdentity": "Linked an identity to a user",
        "unlinkIdentity": "Unlinked an identity from a user",
        "putEntity": "Saved an entity",
        "deleteEntity": "Deleted an entity",
        "putDestination": "Saved a destination",
        "removeDestination": "Removed a destination",
        "putDataSource": "Saved a data source",
        "removeDataSource": "Removed a data source",
        "pullDataSource": "Asked for a read of a data source",
        "retryDelivery": "Sent a waiting change to the company's backend again",
        "discardDelivery": "Discarded a change the company's backend never decided",
        "addOperator": "Added an operator",
        "updateOperator": "Changed an operator's role",
        "removeOperator": "Removed an operator",
        "enrolOperator": "Gave an operator a new enrolment link",
        "linkOperatorIdentity": "Linked an identity to an operator",
        "unlinkOperatorIdentity": "Unlinked an identity from an operator",
        "enrol": "Enrolled (password and second factor set)",
        "signIn": "Signed in to the console",
        "signInThroughProvider": "Signed in to the console at their provider",
        "signInFailed": "Failed to sign in to the console",
        "signOut": "Signed out of the console",
        "refused": "Was refused an action beyond their role",
    ]

    /// What a path's collections are called, one by one (`/admin/apps/a/devices/r`).
    private static let nouns: [String: String] = [
        "apps": "app", "devices": "registration", "users": "user", "operators": "operator",
        "destinations": "destination", "data-sources": "data source of set", "pull": "read", "deliveries": "change",
        "retry": "retry", "data": "set",
        "activations": "activation link",
        "authentication": "sign-in", "sessions": "sessions", "identities": "identities",
        "enrolment": "enrolment link",
    ]

    /// `action` as a phrase; an action this version does not know, as recorded.
    package static func action(_ action: String) -> String {
        actions[action] ?? action
    }

    /// `target` (a request's path) by what the console calls what it names
    /// (`app checks, registration R-1`); a path of another shape, as recorded.
    package static func target(_ target: String?) -> String {
        guard let target, target.hasPrefix("/admin/") else {
            return target == "/console" || target?.hasPrefix("/console/") == true ? "the console" : target ?? ""
        }
        var parts: [String] = []
        var segments = target.dropFirst("/admin/".count).split(separator: "/").map(String.init)[...]
        while let collection = segments.popFirst() {
            guard let noun = nouns[collection] else { return target }
            if collection == "data", segments.count >= 1 {
                // /data/{set}/{entity}
                parts.append("set \(segments.removeFirst())")
                if let entity = segments.popFirst() { parts.append("entity \(entity)") }
            } else if let name = segments.first, nouns[name] == nil {
                parts.append("\(noun) \(name)")
                segments.removeFirst()
            } else {
                parts.append(noun)
            }
        }
        return parts.joined(separator: ", ")
    }

    /// `detail` with each changed setting named by its label on the app's page
    /// (`settings.passwordPolicy.passwordPolicyMinLength: 6 → 8` is
    /// `Minimum length: 6 → 8`); other names as recorded.
    package static func detail(_ detail: String?) -> String {
        guard let detail else { return "" }
        let labels = Dictionary(
            AppSettingsForm.sections.flatMap(\.settings).map { ($0.key, $0.label) },
            uniquingKeysWith: { first, _ in first }
        )
        return detail.components(separatedBy: "; ").map { part in
            guard let colon = part.range(of: ": ") else { return part }
            let path = String(part[..<colon.lowerBound])
            guard let key = path.split(separator: ".").last.map(String.init), let label = labels[key] else {
                return part
            }
            return label + part[colon.lowerBound...]
        }.joined(separator: "; ")
    }
}

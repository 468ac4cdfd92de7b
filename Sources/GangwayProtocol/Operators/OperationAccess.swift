import Foundation

/// Who may call an operation: its `x-minimum-role` in `openapi.json`, the one table the
/// server's check reads (a test holds every operation to having one).
///
/// An operation is open to anyone, to a device's session, or to an operator's role: the
/// admin token holds every role, and an operator in the console holds theirs.
public enum OperationAccess: Sendable, Hashable, CustomStringConvertible {
    /// Anyone: the public and OAuth operations (a client proves itself in the body).
    case anyone
    /// A device's session: its bearer token, checked against the app the path names.
    case device
    /// The admin token, or an operator whose role is at least this.
    case role(OperatorRole)

    /// The extension's name in the document.
    public static let documentKey = "x-minimum-role"

    /// The access the document writes as `text` (`anyone`, `device`, `viewer`,
    /// `operator`, `admin`).
    public init?(documented text: String) {
        switch text {
        case "anyone": self = .anyone
        case "device": self = .device
        default:
            guard let role = OperatorRole(rawValue: text) else { return nil }
            self = .role(role)
        }
    }

    /// As the document writes it.
    public var description: String {
        switch self {
        case .anyone: "anyone"
        case .device: "device"
        case .role(let role): role.rawValue
        }
    }

    /// Each operation's access, by its ID, as `document` states it.
    ///
    /// - Throws: ``Problem`` when an operation has no access, or one the table does not
    ///   know: the server then refuses to start rather than guess.
    public static func table(document: Data) throws -> [String: OperationAccess] {
        guard let root = try JSONSerialization.jsonObject(with: document) as? [String: Any],
            let paths = root["paths"] as? [String: [String: Any]]
        else { throw Problem(operation: "", reason: "the document has no paths") }
        var table: [String: OperationAccess] = [:]
        for operation in paths.values.flatMap(\.values) {
            guard let operation = operation as? [String: Any], let id = operation["operationId"] as? String
            else { continue }
            guard let text = operation[documentKey] as? String else {
                throw Problem(operation: id, reason: "it has no \(documentKey)")
            }
            guard let access = OperationAccess(documented: text) else {
                throw Problem(
                    operation: id,
                    reason: "its \(documentKey) is not anyone, device, viewer, operator or admin"
                )
            }
            table[id] = access
        }
        return table
    }

    /// An operation whose access the document does not state.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var operation: String
        public var reason: String
        public var description: String { "Operation \(operation): \(reason)." }
    }
}

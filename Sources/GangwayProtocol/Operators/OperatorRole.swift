/// What an operator may do in the console and through the admin API: each role can do
/// what the one before it can. The one declaration the server's storage, its console, the
/// admin client and `gangway admin` share.
public enum OperatorRole: String, Sendable, Hashable, CaseIterable, Comparable, Codable {
    /// Reads everything; changes nothing.
    case viewer
    /// Also acts on users and devices: blocks, revokes, locks and wipes.
    case `operator`
    /// Also changes apps, their settings and the operators.
    case admin

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The role as the API document names it.
    public var wire: Components.Schemas.OperatorRole {
        switch self {
        case .viewer: .viewer
        case .operator: ._operator
        case .admin: .admin
        }
    }

    /// The role the API document's value names.
    public init(_ wire: Components.Schemas.OperatorRole) {
        switch wire {
        case .viewer: self = .viewer
        case ._operator: self = .operator
        case .admin: self = .admin
        }
    }
}

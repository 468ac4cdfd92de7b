import Foundation
import GangwayProtocol
import HTTPTypes

/// Who may run each operation, and the one check of it: used by the HTTP gate
/// (``AccessGate``) for every request, and by the console for every operation it runs in
/// process (``OperatorConsole/run(for:_:_:)``). No handler checks its caller again.
///
/// The table is the document's: each operation's `x-minimum-role`
/// (``GangwayProtocol/OperationAccess``). An operation the table does not name is refused.
struct AccessPolicy: Sendable {
    let table: [String: OperationAccess]

    init(document: Data) throws {
        table = try OperationAccess.table(document: document)
    }

    /// Throws unless `principal` may run `operationID`: 401 for a caller without the
    /// right kind of token, 403 for an operator whose role falls short.
    func check(_ principal: Principal, for operationID: String) throws(APIError) {
        guard let access = table[operationID] else { throw .adminRequired }
        switch (access, principal) {
        case (.anyone, _), (.device, .session), (.role, .adminToken):
            return
        case (.device, _):
            throw .unauthorized
        case (.role(let needed), .console(_, let role)):
            guard role >= needed else { throw .roleRequired(needed, held: role) }
        case (.role, .anonymous), (.role, .unknownToken), (.role, .session):
            throw .adminRequired
        }
    }

    /// The role `operationID` needs, when it needs one.
    func role(for operationID: String) -> OperatorRole? {
        guard case .role(let role) = table[operationID] else { return nil }
        return role
    }

    /// The operations that need a role: the admin API's.
    var roleOperations: Set<String> {
        Set(table.compactMap { if case .role = $0.value { $0.key } else { nil } })
    }
}

extension APIError {
    /// An operator whose role does not reach the operation's.
    static func roleRequired(_ needed: OperatorRole, held: OperatorRole) -> APIError {
        APIError(
            .forbidden,
            .roleRequired,
            "This needs the \(needed.rawValue) role; the operator is a \(held.rawValue)."
        )
    }
}

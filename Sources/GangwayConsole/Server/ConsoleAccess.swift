public import GangwayProtocol

/// Who may run each operation, as the console asks before it runs one in process for an
/// operator: the same table and the same check as the HTTP gate's (the server's access
/// policy conforms).
public protocol ConsoleAccess: Sendable {
    /// Throws the refusal (a ``ConsoleRefusal``) unless an operator of `role` may run
    /// `operationID`.
    func check(operator name: String, role: OperatorRole, for operationID: String) throws

    /// The role `operationID` needs, when it needs one.
    func role(for operationID: String) -> OperatorRole?
}

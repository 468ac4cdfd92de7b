/// A session call that does not fit the session's state.
public struct SessionError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case wrongState
    }

    private let code: Code
    /// What was called.
    public let call: String
    /// The state it was called in.
    public let state: String

    private init(_ code: Code, call: String, state: String) {
        self.code = code
        self.call = call
        self.state = state
    }

    /// The call is not allowed in the session's current state.
    public static let wrongState = Self(.wrongState, call: "", state: "")

    static func wrongState(_ call: String, in state: SessionStateMachine.State) -> Self {
        Self(.wrongState, call: call, state: state.name)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "\(call) is not allowed while the session is \(state)" }
}

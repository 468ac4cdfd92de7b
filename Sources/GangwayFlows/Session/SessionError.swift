/// A session call that does not fit the session's state, or a session manager set up in a
/// way that cannot work.
public struct SessionError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case wrongState
        case misconfigured
        case storeNotOpen
        case unknownUser
    }

    private let code: Code
    /// What was called.
    public let call: String
    /// The state it was called in, or what is wrong with the setup.
    public let state: String

    private init(_ code: Code, call: String, state: String) {
        self.code = code
        self.call = call
        self.state = state
    }

    /// The call is not allowed in the session's current state.
    public static let wrongState = Self(.wrongState, call: "", state: "")
    /// The session manager's parts do not fit together (for example a multi-user
    /// onboarding-ID manager with a store manager not set up for a shared device).
    public static let misconfigured = Self(.misconfigured, call: "", state: "")
    /// The call needs the user's secure store and the open session has none.
    public static let storeNotOpen = Self(.storeNotOpen, call: "", state: "")
    /// The call names a user this device does not have.
    public static let unknownUser = Self(.unknownUser, call: "", state: "")

    static func wrongState(_ call: String, in state: SessionStateMachine.State) -> Self {
        Self(.wrongState, call: call, state: state.name)
    }

    static func misconfigured(_ reason: String) -> Self { Self(.misconfigured, call: "init", state: reason) }

    static func storeNotOpen(_ call: String) -> Self { Self(.storeNotOpen, call: call, state: "open") }

    static func unknownUser(_ call: String) -> Self { Self(.unknownUser, call: call, state: "") }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        switch code {
        case .wrongState: "\(call) is not allowed while the session is \(state)"
        case .misconfigured: "the session manager is misconfigured: \(state)"
        case .storeNotOpen: "\(call) needs the user's secure store, and the session has none"
        case .unknownUser: "\(call) names no user of this device"
        }
    }
}

import GangwayStore

/// An error no retry can cure: the user decided (cancelled, forgot the passcode, declined
/// an agreement), or the user's data is gone. The ``FlowController`` stops on it without
/// asking its delegate.
public protocol FlowEndingError: Error {
    /// Whether this error ends the flow.
    var endsFlow: Bool { get }
}

extension StoreFlowError: FlowEndingError {
    public var endsFlow: Bool { self == .passcodeResetRequested || self == .cancelled }
}

extension UserError: FlowEndingError {
    public var endsFlow: Bool { true }
}

extension ConsentError: FlowEndingError {
    public var endsFlow: Bool { true }
}

extension SecureStoreError: FlowEndingError {
    public var endsFlow: Bool { self == .erased }
}

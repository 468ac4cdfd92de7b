/// Why a flow did not complete.
public struct FlowError: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case stopped
        case cancelled
    }

    private let code: Code
    /// The flow that failed.
    public let flowType: FlowType?
    /// The position of the step that failed, counting from zero.
    public let stepIndex: Int?
    /// What the step threw.
    public let underlying: (any Error)?

    private init(_ code: Code, flowType: FlowType? = nil, stepIndex: Int? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.flowType = flowType
        self.stepIndex = stepIndex
        self.underlying = underlying
    }

    /// A step failed and the delegate chose to stop; an onboarding was rolled back.
    public static let stopped = Self(.stopped)
    /// The task running the flow was cancelled; an onboarding was rolled back.
    public static let cancelled = Self(.cancelled)

    static func stopped(_ type: FlowType, step: Int, underlying: any Error) -> Self {
        Self(.stopped, flowType: type, stepIndex: step, underlying: underlying)
    }

    static func cancelled(_ type: FlowType, step: Int) -> Self {
        Self(.cancelled, flowType: type, stepIndex: step)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        let flow = flowType.map { "the \($0) flow" } ?? "a flow"
        let step = stepIndex.map { " at step \($0 + 1)" } ?? ""
        switch code {
        case .stopped:
            let reason = underlying.map { ": \($0)" } ?? ""
            return "\(flow) stopped\(step)\(reason)"
        case .cancelled:
            return "\(flow) was cancelled\(step)"
        }
    }
}

/// Supplies the steps of each flow type: the app's say in what onboarding does.
public protocol FlowProvider: Sendable {
    /// The steps to run, in order, for a flow of `type`.
    func steps(for type: FlowType) -> [any Step]
}

/// A flow provider of fixed step lists: the same list for every flow type, which is
/// what most apps need, since each step knows its part in each type.
public struct StepListProvider: FlowProvider {
    /// The steps, in order.
    public let steps: [any Step]

    public init(_ steps: [any Step]) {
        self.steps = steps
    }

    public func steps(for type: FlowType) -> [any Step] { steps }
}

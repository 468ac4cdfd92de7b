/// Several steps run as one, in order: a reusable group an app can drop into its flows.
///
/// Reset runs the steps in reverse order, like a failed onboarding's rollback.
public struct CompositeStep: GroupStep {
    /// The steps, in the order they run.
    public let steps: [any Step]

    public init(_ steps: [any Step]) {
        self.steps = steps
    }

    public func reset(_ context: FlowContext) async {
        for step in steps.reversed() { await step.reset(context) }
    }

    func runAll(_ type: FlowType, _ context: FlowContext) async throws -> FlowContext {
        var context = context
        for step in steps { context = try await step.run(type, context) }
        return context
    }
}

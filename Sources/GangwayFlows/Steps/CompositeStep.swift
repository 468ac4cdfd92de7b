/// Several steps run as one, in order: a reusable group an app can drop into its flows.
///
/// Reset runs the steps in reverse order, like a failed onboarding's rollback.
public struct CompositeStep: Step {
    /// The steps, in the order they run.
    public let steps: [any Step]

    public init(_ steps: [any Step]) {
        self.steps = steps
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        try await runAll(.onboard, context)
    }

    public func restore(_ context: FlowContext) async throws -> FlowContext {
        try await runAll(.restore(context.onboardingID), context)
    }

    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext {
        try await runAll(.resetPasscode(context.onboardingID), context)
    }

    public func background(_ context: FlowContext) async throws -> FlowContext {
        try await runAll(.background(context.onboardingID), context)
    }

    public func reset(_ context: FlowContext) async {
        for step in steps.reversed() { await step.reset(context) }
    }

    private func runAll(_ type: FlowType, _ context: FlowContext) async throws -> FlowContext {
        var context = context
        for step in steps { context = try await step.run(type, context) }
        return context
    }
}

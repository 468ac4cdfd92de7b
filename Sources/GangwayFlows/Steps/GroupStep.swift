/// A step made of other steps, which runs every flow type the same way: ``runAll(_:_:)``
/// gets the flow type and does the work. ``CompositeStep`` and ``StoreSelectorStep`` are
/// two.
///
/// Every flow type that runs steps is passed on, the unlock flow included: an app that
/// groups its agreement steps must have them asked at unlock as when they stand alone.
/// Reset is each group's own (it runs in reverse, and never throws).
protocol GroupStep: Step {
    /// Runs the group's steps for `type`.
    func runAll(_ type: FlowType, _ context: FlowContext) async throws -> FlowContext
}

extension GroupStep {
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

    public func unlock(_ context: FlowContext) async throws -> FlowContext {
        try await runAll(.unlock(context.onboardingID), context)
    }
}

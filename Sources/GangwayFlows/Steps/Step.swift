/// One unit of an onboarding story: show the welcome screen, sign in, create the store, …
///
/// A flow runs its steps in order, each receiving the context the previous one returned.
/// A step implements the flow types it takes part in; the others pass the context on
/// unchanged. ``reset(_:)`` undoes what the step left behind (after a failed onboarding,
/// or when a user is removed); it is best effort and never throws.
public protocol Step: Sendable {
    /// First launch: set up what the step is responsible for.
    func onboard(_ context: FlowContext) async throws -> FlowContext
    /// A later launch: bring back what onboarding set up.
    func restore(_ context: FlowContext) async throws -> FlowContext
    /// The user forgot the passcode: re-authenticate and set a new one.
    func resetPasscode(_ context: FlowContext) async throws -> FlowContext
    /// Undo what the step set up. Best effort.
    func reset(_ context: FlowContext) async
    /// The app went to the background.
    func background(_ context: FlowContext) async throws -> FlowContext
    /// The app came back and the person unlocked it (see ``FlowType/unlock(_:)``).
    func unlock(_ context: FlowContext) async throws -> FlowContext
}

extension Step {
    public func restore(_ context: FlowContext) async throws -> FlowContext { context }
    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext { context }
    public func reset(_ context: FlowContext) async {}
    public func background(_ context: FlowContext) async throws -> FlowContext { context }
    public func unlock(_ context: FlowContext) async throws -> FlowContext { context }

    /// Runs the part of the step for `type`.
    func run(_ type: FlowType, _ context: FlowContext) async throws -> FlowContext {
        switch type {
        case .onboard:
            return try await onboard(context)
        case .restore:
            return try await restore(context)
        case .resetPasscode:
            return try await resetPasscode(context)
        case .background:
            return try await background(context)
        case .unlock:
            return try await unlock(context)
        case .reset:
            await reset(context)
            return context
        }
    }
}

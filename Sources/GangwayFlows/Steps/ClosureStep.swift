/// A step made of closures, for small app-specific work between Gangway's steps.
public struct ClosureStep: Step {
    /// The closure's work for one flow type.
    public typealias Work = @Sendable (FlowContext) async throws -> FlowContext

    /// A name for logs.
    public let name: String
    private let onboardWork: Work
    private let restoreWork: Work
    private let resetWork: @Sendable (FlowContext) async -> Void

    public init(
        _ name: String,
        onboard: @escaping Work = { $0 },
        restore: @escaping Work = { $0 },
        reset: @escaping @Sendable (FlowContext) async -> Void = { _ in }
    ) {
        self.name = name
        onboardWork = onboard
        restoreWork = restore
        resetWork = reset
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext { try await onboardWork(context) }
    public func restore(_ context: FlowContext) async throws -> FlowContext { try await restoreWork(context) }
    public func reset(_ context: FlowContext) async { await resetWork(context) }
}

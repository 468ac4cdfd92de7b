import GangwayStore

/// On restore, applies the passcode requirement the settings download put in the context
/// to the user's open store (see ``StoreManager/applyPolicy(_:to:presenter:)``). In the
/// background, where nothing may be shown, it records the change for the next unlock
/// instead (``StoreManager/deferPolicy(_:to:)``). A forced passcode change at a launch
/// asks only for the new passcode: the one the person just opened the store with is
/// known. Put it after the settings download; it
/// does nothing when no settings were downloaded.
public struct PasscodePolicyApplyStep: Step {
    /// The manager that applies the policy.
    public let manager: StoreManager

    public init(manager: StoreManager) {
        self.manager = manager
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext { context }

    public func restore(_ context: FlowContext) async throws -> FlowContext {
        var context = context
        // Used here or nowhere: the passcode the store step opened the store with.
        let typed = context.info[.unlockPasscode]
        context.info[.unlockPasscode] = nil
        guard let requirement = context.info[.passcodeRequirement] else { return context }
        guard let store = context.secureStore else { throw StoreFlowError.storeNotOpen }
        try await manager.applyPolicy(requirement, to: store, presenter: context.presenter, verifiedCurrent: typed)
        return context
    }

    public func background(_ context: FlowContext) async throws -> FlowContext {
        guard let requirement = context.info[.passcodeRequirement], let store = context.secureStore else {
            return context
        }
        try manager.deferPolicy(requirement, to: store)
        return context
    }
}

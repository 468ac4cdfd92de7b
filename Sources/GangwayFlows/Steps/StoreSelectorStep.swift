import GangwayStore

/// Runs steps against another credential store than the user's: for example a store
/// every user of the device shares, for settings that belong to the device. The context's
/// own credential store is given back when the steps finish.
public struct StoreSelectorStep: GroupStep {
    /// Picks the store the steps see, and releases it when they are done.
    public struct Selector: Sendable {
        let open: @Sendable (FlowContext) throws -> any CredentialStore
        let release: @Sendable (any CredentialStore) -> Void

        public init(
            open: @escaping @Sendable (FlowContext) throws -> any CredentialStore,
            release: @escaping @Sendable (any CredentialStore) -> Void = { _ in }
        ) {
            self.open = open
            self.release = release
        }

        /// The secure store at `location`, in no-passcode mode (created on first use) and
        /// closed after the steps: a device-wide store.
        public static func deviceStore(at location: SecureStoreLocation) -> Self {
            Self(
                open: { _ in
                    location.exists
                        ? try location.unlockWithoutPasscode() : try location.create(protection: .noPasscode)
                },
                release: { ($0 as? SecureStore)?.close() }
            )
        }
    }

    /// How the store is picked.
    public let selector: Selector
    /// The steps run against it, in order.
    public let steps: [any Step]
    /// Whether resetting one user also resets the steps in the selected store. Off by
    /// default: a store every user shares must not lose its data because one user left.
    public let resetsSelectedStore: Bool

    public init(_ selector: Selector, steps: [any Step], resetsSelectedStore: Bool = false) {
        self.selector = selector
        self.steps = steps
        self.resetsSelectedStore = resetsSelectedStore
    }

    public func reset(_ context: FlowContext) async {
        guard resetsSelectedStore, let store = try? selector.open(context) else { return }
        var inner = context
        inner.credentials = store
        await CompositeStep(steps).reset(inner)
        selector.release(store)
    }

    func runAll(_ type: FlowType, _ context: FlowContext) async throws -> FlowContext {
        let store = try selector.open(context)
        defer { selector.release(store) }
        var inner = context
        inner.credentials = store
        inner = try await CompositeStep(steps).run(type, inner)
        inner.credentials = context.credentials
        return inner
    }
}

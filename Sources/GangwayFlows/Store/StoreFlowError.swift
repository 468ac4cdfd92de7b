/// Why the store manager did not open, create or change a store.
///
/// Errors are equal when their kind is equal. Store errors (wrong passcode at the limit,
/// integrity failures) come through as ``GangwayStore/SecureStoreError``.
public struct StoreFlowError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case passcodeResetRequested
        case switchUserRequested
        case addUserRequested
        case cancelled
        case storeNotFound
        case storeNotOpen
        case actionNotAvailable
    }

    private let code: Code
    /// Context for a person reading the message. Never a secret.
    public let detail: String?

    private init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The user chose "forgot passcode": the session manager starts the reset flow.
    public static let passcodeResetRequested = Self(.passcodeResetRequested)
    /// On a shared device's passcode screen, the person chose "switch user": the session
    /// manager shows the user picker.
    public static let switchUserRequested = Self(.switchUserRequested)
    /// On a shared device's passcode screen, the person chose "add user": the session
    /// manager onboards a new user.
    public static let addUserRequested = Self(.addUserRequested)
    /// The user cancelled the passcode screen.
    public static let cancelled = Self(.cancelled)
    /// A restore found no store for the user.
    public static let storeNotFound = Self(.storeNotFound)
    /// A step needs the user's store open in the context and it is not.
    public static let storeNotOpen = Self(.storeNotOpen)
    /// The passcode action is not available for this store, policy and device.
    public static let actionNotAvailable = Self(.actionNotAvailable)

    static func actionNotAvailable(_ action: PasscodeAction) -> Self {
        Self(.actionNotAvailable, detail: action.rawValue)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        var text =
            switch code {
            case .passcodeResetRequested: "the user asked to reset the passcode"
            case .switchUserRequested: "the person asked to switch user"
            case .addUserRequested: "the person asked to add a user"
            case .cancelled: "the user cancelled"
            case .storeNotFound: "the user has no store on this device"
            case .storeNotOpen: "the user's store is not open"
            case .actionNotAvailable: "the passcode action is not available"
            }
        if let detail { text += " (\(detail))" }
        return text
    }
}

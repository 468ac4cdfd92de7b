import GangwayPolicy

/// How a new store's data key is protected.
public enum StoreProtection: Sendable {
    /// By a passcode (NFKC-normalised, checked against the policy).
    case passcode(Secret)
    /// By the device key alone: no passcode is asked. Anyone who can run code as the app
    /// with its device key store can read the data; use only where the policy says so.
    case noPasscode
}

/// What the server (or the app's default) asks of a user's store: a passcode under a
/// policy, or none.
public enum PasscodeRequirement: Sendable, Hashable, Codable {
    /// No passcode: the store is protected by the device key alone.
    case notRequired
    /// A passcode that meets the policy.
    case required(PasscodePolicy)

    /// The policy, when a passcode is required.
    public var policy: PasscodePolicy? {
        if case .required(let policy) = self { return policy }
        return nil
    }
}

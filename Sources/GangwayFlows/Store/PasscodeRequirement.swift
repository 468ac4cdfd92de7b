import GangwayPolicy
import GangwayStore

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

extension FlowInfoKey where Value == PasscodeRequirement {
    /// The passcode requirement the settings download found on the server; absent when
    /// the server said nothing (the store manager's default policy then applies).
    public static var passcodeRequirement: Self { Self("gangway.passcodeRequirement") }
}

extension FlowInfoKey where Value == Secret {
    /// The passcode the store step opened the store with at a launch: handed to the policy
    /// step in the same flow and removed by it, and by the flow controller when the flow
    /// ends, so it never outlives the flow.
    static var unlockPasscode: Self { Self("gangway.unlockPasscode") }
}

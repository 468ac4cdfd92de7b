import GangwayPolicy
import GangwayStore

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

/// What a settings screen can offer the user about their passcode, depending on the policy
/// and the device (see ``StoreManager/availableActions(for:)``).
public enum PasscodeAction: String, Sendable, Hashable, CaseIterable, Codable {
    /// Set a passcode on a store that has none.
    case createPasscode
    /// Change the passcode.
    case changePasscode
    /// Turn the passcode off, when the policy lets the user skip it.
    case turnOffPasscode
    /// Turn biometric unlock on.
    case enableBiometrics
    /// Turn biometric unlock off.
    case disableBiometrics
}

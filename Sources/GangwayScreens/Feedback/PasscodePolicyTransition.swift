import GangwayPolicy

/// How a new passcode policy from the server changes what protects a user's store.
///
/// Each transition is announced by a ``FeedbackScreen`` with its reason before anything
/// changes.
public enum PasscodePolicyTransition: String, Sendable, Hashable, CaseIterable, Codable {
    /// No passcode until now; the policy requires one, without biometrics.
    case noneToPasscode
    /// No passcode until now; the policy requires one and allows biometrics.
    case noneToPasscodeWithBiometrics
    /// The passcode no longer meets the policy: the user chooses a new one.
    case passcodeToPasscode
    /// The policy no longer asks for a passcode: it is turned off.
    case passcodeToNone
    /// The policy now allows biometrics: the user may turn them on.
    case passcodeToPasscodeWithBiometricsOffered
    /// The policy now allows going without a passcode: the user may turn it off in the
    /// settings (never on a shared device).
    case passcodeToPasscodeWithSkipOffered
    /// The policy no longer allows biometrics: they are turned off.
    case biometricsToPasscodeOnly
    /// The policy asks for nothing: passcode and biometrics are turned off.
    case biometricsToNone
}

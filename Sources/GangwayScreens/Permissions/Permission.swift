/// Something the platform asks the person before an app may use it: the camera, the
/// location, notifications. An app asks for each once, in its onboarding, on a screen of
/// its own (``PermissionScreen``) that says why, before the platform's own question.
public enum Permission: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Taking photos and scanning codes.
    case camera
    /// The device's location while the app is in use.
    case location
    /// Notifications the app sends.
    case notifications

    public var description: String { rawValue }
}

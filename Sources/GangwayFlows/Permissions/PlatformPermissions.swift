import GangwayScreens

/// Where the platform stands on one permission for the app.
public enum PermissionStatus: String, Sendable, Hashable, Codable {
    /// Never asked: the platform's question can still be shown.
    case notDetermined
    /// The person allowed it.
    case granted
    /// The person refused it; only the device's settings can change that.
    case denied
    /// A device policy forbids it; the person cannot allow it.
    case restricted
}

/// The platform's permission API, the seam between ``PermissionsStep`` and the system: on
/// iOS the role of `AVCaptureDevice.requestAccess`, `CLLocationManager` and
/// `UNUserNotificationCenter`; on the terminal a simulation.
public protocol PlatformPermissions: Sendable {
    /// Where the platform stands on `permission` now.
    func status(of permission: Permission) async -> PermissionStatus
    /// Shows the platform's own question for `permission` and returns the answer. Called
    /// only while ``status(of:)`` is ``PermissionStatus/notDetermined``.
    /// - Throws: When the question cannot be shown or the person left (the flow stops).
    func request(_ permission: Permission) async throws -> PermissionStatus
}

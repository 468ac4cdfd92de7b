import Foundation
import GangwayFlows

/// The server's record of this device for the signed-in user.
public struct DeviceRegistration: Sendable, Hashable {
    /// The server's ID for the registration.
    public var registrationID: String
    /// The device's ID.
    public var deviceID: String
    /// The secret the server keeps for passcode resets that keep the user's data; `nil`
    /// when the app's admin turned that off (a forgotten passcode then erases the data).
    public var recoveryKey: RecoveryKey?
    /// When the device registered.
    public var registeredAt: Date
}

/// Whether an app version may still be used.
public struct VersionStatus: Sendable, Hashable {
    /// Whether the version is active.
    public var isActive: Bool
    /// The lowest active version, when the server has one.
    public var minimumVersion: String?
    /// The server's message for users of an inactive version.
    public var message: String?
    /// How the app's people sign in now (an older server does not say).
    public var authType: AppConfiguration.AuthType? = nil
}

import Foundation

/// How this device introduces itself to the server: a stable ID and, for the admin's
/// device list, a name, the platform and the app's version.
public struct DeviceIdentity: Sendable, Hashable, Codable {
    /// A stable ID for the device: letters, digits, dots, dashes or underscores.
    public var deviceID: String
    /// The name an administrator sees.
    public var deviceName: String
    /// The operating system.
    public var platform: String
    /// The app's version, checked against the app's minimum active version.
    public var appVersion: String

    public init(
        deviceID: String,
        deviceName: String,
        platform: String = DeviceIdentity.currentPlatform,
        appVersion: String
    ) {
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.platform = platform
        self.appVersion = appVersion
    }

    /// The platform this build runs on.
    public static var currentPlatform: String {
        #if os(iOS)
            "ios"
        #elseif os(macOS)
            "macos"
        #elseif os(Linux)
            "linux"
        #else
            "other"
        #endif
    }
}

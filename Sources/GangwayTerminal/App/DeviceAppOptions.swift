import Foundation
import GangwayOffline

/// How `gangway` runs the device app.
public struct DeviceAppOptions: Sendable {
    /// Where the app keeps everything: the device's stores and keys under `device/`, the
    /// embedded server's database and admin token under `server/`.
    public var dataDirectory: URL
    /// A running server to use instead of the embedded one.
    public var serverURL: URL?
    /// The embedded server's bcrypt cost.
    public var bcryptCost: UInt8
    /// Whether the simulated fingerprint sensor is enrolled.
    public var biometrics: Bool
    /// Passcode key-derivation rounds; only tests lower it.
    public var passcodeRounds: Int
    /// Whether several people share the device (the user picker, "add user").
    public var isSharedDevice: Bool
    /// The most pending changes one upload carries; only tests lower it.
    public var uploadBatchSize: Int

    public init(
        dataDirectory: URL,
        serverURL: URL? = nil,
        bcryptCost: UInt8 = 12,
        biometrics: Bool = false,
        passcodeRounds: Int,
        isSharedDevice: Bool = true,
        uploadBatchSize: Int? = nil
    ) {
        self.dataDirectory = dataDirectory
        self.serverURL = serverURL
        self.bcryptCost = bcryptCost
        self.biometrics = biometrics
        self.passcodeRounds = passcodeRounds
        self.isSharedDevice = isSharedDevice
        self.uploadBatchSize = uploadBatchSize ?? EntityLimits.changesPerUpload
    }

    var deviceDirectory: URL { dataDirectory.appendingPathComponent("device") }
    var serverDirectory: URL { dataDirectory.appendingPathComponent("server") }
}
